// What clients ask of a job, in the imperative. Time is part of the command.
import type { ReferenceFacts } from './references.js';
import type { SecretFinding } from './secrets.js';
import type { Caller } from './caller.js';
import type { NoticeKind, SampledCall, SessionFigures, Time } from './events.js';
import type { ToolCall } from './toolCall.js';
import type { ImportChain } from './chainImport.js';

export type { ImportChain };

export type RecordInteraction = {
  type: 'RecordInteraction';
  job: string;
  kind: string;
  text: string;
  session?: string;
  agent?: string;
  /** The agent's context use in tokens, when its transcript tells. */
  contextTokens?: number;
  /** The window of the agent's model in tokens, when it is known: used unless CONTEXT_WINDOW is set. */
  contextWindow?: number;
  /** The id recap-hook gave the prompt: one already recorded is not recorded again. */
  promptId?: string;
  /** The secrets found in `text` (daemon/secretScanner.ts): replaced before it is stored. */
  secrets?: SecretFinding[];
  now: Time;
};

export type CheckTool = {
  type: 'CheckTool';
  job: string;
  call: ToolCall;
  session?: string | undefined;
  agent?: string | undefined;
  /** The agent's working folder, for tool paths given relative to it. */
  cwd?: string | undefined;
  contextTokens?: number | undefined;
  contextWindow?: number | undefined;
  now: Time;
};

/**
 * `files`: what the daemon found for each file the summary's `## Files` section names
 * (references.ts), in the project `root`; `secrets`: the secrets found in `text`, replaced
 * before it is checked and stored.
 */
export type SubmitSummary = { type: 'SubmitSummary'; job: string; text: string; topic?: string; files?: ReferenceFacts; root?: string; secrets?: SecretFinding[]; now: Time };

export type TripGate = { type: 'TripGate'; job: string; note?: string; by?: Caller; now: Time };

export type UsageEntry = { key: string; agent: string; model?: string; input: number; output: number; cacheCreation: number; cacheRead: number };

export type RecordUsage = { type: 'RecordUsage'; job: string; session: string; entries: UsageEntry[]; now: Time };

export type CancelTrip = { type: 'CancelTrip'; job: string; by?: Caller; now: Time };

export type PauseGate = { type: 'PauseGate'; job: string; until: Time; by?: Caller; now: Time };

export type ResumeGate = { type: 'ResumeGate'; job: string; by?: Caller; now: Time };

/** A hook showed the user the notice about the event `about` in the agent's own UI. */
export type RecordNoticeShown = { type: 'RecordNoticeShown'; job: string; about: number; kind: NoticeKind; text: string; session?: string; agent?: string; now: Time };

/** A hook found recap switched off (RECAP_DISABLE=1) for the session: it lets the call through, uncounted. */
export type RecordRecapOff = { type: 'RecordRecapOff'; job: string; session?: string; agent: string; now: Time };

/**
 * `recap amend N`: the user's corrected text for summary #`entry`, whose chain hash the log
 * holds (`entryHash`, read at the edge); `files` and `root` as a submission's.
 */
export type AmendSummary = {
  type: 'AmendSummary';
  job: string;
  entry: number;
  entryHash: string;
  text: string;
  files?: ReferenceFacts;
  root?: string;
  /** The secrets found in `text`, replaced before it is checked and stored, as a submission's are. */
  secrets?: SecretFinding[];
  by?: Caller;
  now: Time;
};

/**
 * `recap redact N`: remove the text of event #`seq`. `target` is what the log holds at that
 * number (read at the edge): a summary with its chain hash, an interaction (and whether its
 * text is gone already), or something else of that type.
 */
export type RedactEntry = {
  type: 'RedactEntry';
  job: string;
  seq: number;
  target: RedactTarget | undefined;
  reason?: string;
  by?: Caller;
  now: Time;
};

/** An event as a redaction sees it: its type and job, a summary's hash, an amendment's entry, whether its text is gone. */
export type RedactTarget = { type: string; job?: string; hash?: string; entry?: number; redacted?: boolean };

/** The agent said the session ended: its figures, folded by the daemon from the log and its hooks, go on record. */
export type EndSession = { type: 'EndSession'; job: string; session: string; from: string; reason?: string; started: Time; figures: SessionFigures; now: Time };

/** A session's first tool calls, kept for the quality signals (firstCalls.ts). */
export type RecordFirstCalls = { type: 'RecordFirstCalls'; job: string; session: string; agent?: string; calls: SampledCall[]; now: Time };

export type Command =
  | RecordFirstCalls
  | ImportChain
  | EndSession
  | RecordInteraction
  | CheckTool
  | SubmitSummary
  | TripGate
  | RecordUsage
  | CancelTrip
  | PauseGate
  | ResumeGate
  | RecordNoticeShown
  | RecordRecapOff
  | AmendSummary
  | RedactEntry;

/** A command the domain refuses: a user's mistake, reported as such. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandRefused';
  }
}

/**
 * The configuration in force for a job (no job: the user-wide one) is to be on record.
 * What the log holds comes in the command: `recorded` is the job's last ConfigApplied (for
 * no job, leave it out), `userRecorded` the user-wide one, `userValues` the user's in force.
 */
export type ApplyConfig = {
  type: 'ApplyConfig';
  job?: string;
  values: Record<string, unknown>;
  sources: Record<string, string>;
  recorded?: Record<string, unknown> | undefined;
  userRecorded?: Record<string, unknown> | undefined;
  userValues?: Record<string, unknown> | undefined;
  now: Time;
};
