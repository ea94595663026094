// The domain's one entry: a command and a job's state in, the answer and the events to
// store out (decideConfig: the same for the config records, whose state comes in the
// command). Each command's rules are in its own module; this only dispatches, and the
// compiler checks that every command has its decider.
import type {
  AmendSummary,
  ApplyConfig,
  CancelTrip,
  CheckTool,
  Command,
  EndSession,
  ImportChain,
  PauseGate,
  RecordInteraction,
  RecordFirstCalls,
  RecordNoticeShown,
  RecordRecapOff,
  RecordUsage,
  RedactEntry,
  ResumeGate,
  SubmitSummary,
  TripGate,
} from './commands.js';
import { allowConfigFile, settleConfigFile, type AllowConfigFile, type InForce, type SettleConfigFile } from './configApproval.js';
import { applyConfig } from './configApplied.js';
import { recordNoticeShown } from './notices.js';
import type { DecideContext, Decision } from './decision.js';
import { type RecordAnswer, checkTool, recordInteraction, tripGate, type CheckAnswer } from './gate.js';
import { submitSummary, type SubmitAnswer } from './summaries.js';
import type { JobState } from './jobState.js';
import { cancelTrip, pauseGate, recordRecapOff, resumeGate, type CancelAnswer, type PauseAnswer, type ResumeAnswer } from './switches.js';
import { recordUsage } from './usage.js';
import { amendSummary, redactEntry, type AmendAnswer, type RedactAnswer } from './memoryEdits.js';
import { endSession } from './sessionReport.js';
import { importChain, type ImportAnswer } from './chainImport.js';
import { recordFirstCalls } from './firstCalls.js';

/** What each command answers. */
export type AnswerOf<C extends Command> = C extends RecordInteraction
  ? RecordAnswer
  : C extends CheckTool
    ? CheckAnswer
    : C extends SubmitSummary
      ? SubmitAnswer
      : C extends TripGate
        ? { tripped: true; already: boolean }
        : C extends RecordUsage
          ? { recorded: number }
          : C extends CancelTrip
            ? CancelAnswer
            : C extends PauseGate
              ? PauseAnswer
              : C extends ResumeGate
                ? ResumeAnswer
                : C extends RecordNoticeShown
                  ? { recorded: true }
                  : C extends RecordRecapOff
                    ? { first: boolean }
                    : C extends AmendSummary
                      ? AmendAnswer
                      : C extends RedactEntry
                        ? RedactAnswer
                        : C extends EndSession
                          ? { recorded: true }
                          : C extends ImportChain
                            ? ImportAnswer
                            : C extends RecordFirstCalls
                              ? { recorded: boolean }
                              : never;

export function decide<C extends Command>(command: C, state: JobState, ctx: DecideContext): Decision<AnswerOf<C>> {
  return decideAny(command, state, ctx) as Decision<AnswerOf<C>>;
}

function decideAny(command: Command, state: JobState, ctx: DecideContext): Decision<unknown> {
  switch (command.type) {
    case 'RecordInteraction':
      return recordInteraction(command, state, ctx);
    case 'CheckTool':
      return checkTool(command, state, ctx);
    case 'SubmitSummary':
      return submitSummary(command, state, ctx);
    case 'TripGate':
      return tripGate(command, state);
    case 'RecordUsage':
      return recordUsage(command, state);
    case 'CancelTrip':
      return cancelTrip(command, state);
    case 'PauseGate':
      return pauseGate(command, state);
    case 'ResumeGate':
      return resumeGate(command, state);
    case 'RecordNoticeShown':
      return recordNoticeShown(command);
    case 'RecordRecapOff':
      return recordRecapOff(command, state);
    case 'AmendSummary':
      return amendSummary(command, state, ctx);
    case 'RedactEntry':
      return redactEntry(command, state);
    case 'EndSession':
      return endSession(command);
    case 'ImportChain':
      return importChain(command, state);
    case 'RecordFirstCalls':
      return recordFirstCalls(command);
    default: {
      const unknown: never = command;
      throw new Error(`no decider for ${JSON.stringify(unknown)}`);
    }
  }
}

/** The commands about a config's records: which file content is approved, which configuration is on record. */
export type ConfigCommand = ApplyConfig | AllowConfigFile | SettleConfigFile;

type ConfigAnswerOf<C extends ConfigCommand> = C extends ApplyConfig
  ? { applied: boolean }
  : C extends AllowConfigFile
    ? { already: boolean }
    : C extends SettleConfigFile
      ? InForce
      : never;

export function decideConfig<C extends ConfigCommand>(command: C): Decision<ConfigAnswerOf<C>> {
  return decideConfigAny(command) as Decision<ConfigAnswerOf<C>>;
}

function decideConfigAny(command: ConfigCommand): Decision<unknown> {
  switch (command.type) {
    case 'ApplyConfig':
      return applyConfig(command);
    case 'AllowConfigFile': {
      const [answer, events] = allowConfigFile(command);
      return { answer, events };
    }
    case 'SettleConfigFile': {
      const [answer, events] = settleConfigFile(command);
      return { answer, events };
    }
    default: {
      const unknown: never = command;
      throw new Error(`no decider for ${JSON.stringify(unknown)}`);
    }
  }
}
