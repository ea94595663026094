// The decider for the gate: from a command and a job's state, the answer and the events to
// store. One function per command; none reads the clock, the disk or the network.
import type { Caller } from './caller.js';
import type { CheckTool, RecordInteraction, TripGate } from './commands.js';
import { CommandRefused } from './commands.js';
import type { Config } from './config.js';
import type { DecideContext, Decision } from './decision.js';
import type { DenialCause, RecapEvent } from './events.js';
import { denyReason, protectionReason } from './gateMessages.js';
import { evolve, isPaused, NO_TEXTS, type JobState } from './jobState.js';
import { withoutPrivate } from './privateText.js';
import { replaceSecrets } from './secrets.js';
import { protectionRefusal, RUNS_RECAP } from './protection.js';
import { tripFor } from './triggers.js';
import { classifyBash, recapWord } from './whitelist.js';

export type CheckAnswer = { allow: true } | { allow: false; reason: string };

/** An interaction recorded: its tokens, and why they do not count toward the threshold when they do not. */
export type RecordAnswer = { tokens: number; uncounted?: string };

export function recordInteraction(command: RecordInteraction, state: JobState, ctx: DecideContext): Decision<RecordAnswer> {
  if (command.text.trim() === '') throw new CommandRefused('the interaction text is empty; give the text to record');
  const { job, kind, now } = command;
  // What the user marked private is neither stored nor counted; a text all private is not recorded.
  const said = withoutPrivate(command.text);
  if (said.trim() === '') return { answer: { tokens: 0 }, events: [] };
  // Secrets are counted (the gate sees the text as said) but never stored.
  const tokens = ctx.count(said);
  const { text, secrets } = replaceSecrets(said, command.secrets ?? []);
  const paused = isPaused(state, now);
  const counted = !paused && ctx.config.COUNT_KINDS.includes(kind);
  const recorded: RecapEvent = {
    type: 'InteractionRecorded',
    data: {
      job,
      kind,
      text,
      tokens,
      counted,
      ...(paused ? { paused: true as const } : {}),
      ...(secrets.length > 0 ? { secrets } : {}),
      ...defined({ session: command.session, agent: command.agent, promptId: command.promptId }),
      time: now,
    },
  };
  const tripped = tripFor(state, ctx.config, now, command, { tokens, counted });
  const uncounted = counted ? undefined : paused ? 'the gate is paused' : `COUNT_KINDS is ${ctx.config.COUNT_KINDS.join(', ')}, not ${kind}`;
  return { answer: { tokens, ...(uncounted ? { uncounted } : {}) }, events: tripped ? [recorded, tripped] : [recorded] };
}

export function checkTool(command: CheckTool, state: JobState, ctx: DecideContext): Decision<CheckAnswer> {
  const refusal = protectionRefusal(command.call, command.cwd, ctx.protected, ctx.recapPaths);
  // On a tripped gate a recap command in a form the gate does not take is denied all the
  // same, by the gate, whose answer shows the exact way out.
  const gateAnswers = refusal?.startsWith(RUNS_RECAP) === true && state.gate.tripped;
  if (refusal && !gateAnswers) return { answer: { allow: false, reason: protectionReason(refusal, recapWord(ctx.recapPaths)) }, events: [toolDenied(command, 'protected')] };
  // The user paused the gate: it neither trips nor denies (recap's own files stay off limits, above).
  if (isPaused(state, command.now)) return { answer: { allow: true }, events: [] };
  // An open gate can trip here too: a lowered threshold, the agent's context use.
  const tripped = tripFor(state, ctx.config, command.now, command);
  const events: RecapEvent[] = tripped ? [tripped] : [];
  const current = tripped ? evolve(structuredClone(state), { ...tripped, seq: 0, version: 1 }) : state;
  if (!current.gate.tripped) return { answer: { allow: true }, events };
  const verdict = toolVerdict(command, ctx);
  if (verdict.allowed) return { answer: { allow: true }, events };
  events.push(toolDenied(command, 'gate'));
  return { answer: { allow: false, reason: denyReason(current, ctx.config, ctx.texts ?? NO_TEXTS, verdict.why, recapWord(ctx.recapPaths), ctx.shellTool) }, events };
}

/**
 * `recap trip`: the user asks for a summary now. A tripped gate stays as it is; with nothing
 * to summarize there is no trip (it could only be left by `recap trip --cancel`).
 */
export function tripGate(command: TripGate, state: JobState): Decision<{ tripped: true; already: boolean }> {
  if (state.gate.tripped) return { answer: { tripped: true, already: true }, events: [] };
  const { job, now } = command;
  if (state.pending.length === 0) throw new CommandRefused(`job ${job} has nothing to summarize (no interaction since its last summary), so the gate stays open`);
  return {
    answer: { tripped: true, already: false },
    events: [
      {
        type: 'GateTripped',
        data: { job, reason: 'manual', unsummarizedTokens: state.unsummarizedTokens, limit: 0, ...defined({ note: command.note, by: command.by }), time: now },
      },
    ],
  };
}

function toolDenied(command: CheckTool, cause: DenialCause): RecapEvent {
  const { job, now } = command;
  return { type: 'ToolDenied', data: { job, tool: command.call.name, cause, ...defined({ session: command.session, agent: command.agent }), time: now } };
}

type ToolVerdict = { allowed: true } | { allowed: false; why?: string };

/** While the gate is tripped: the way out (recap's own commands), recap's own MCP tools (they only read the memory) and bypassed questions pass. */
function toolVerdict(command: CheckTool, ctx: DecideContext): ToolVerdict {
  const call = command.call;
  if (call.kind === 'memory') return { allowed: true };
  if (call.kind === 'shell') {
    if (typeof call.command !== 'string') return { allowed: false, why: `the ${call.name} call has no command` };
    if (call.typedIntoSession)
      return { allowed: false, why: `input typed into a running shell (${call.name}) is never recap's way out: run the command as a new call of the shell tool` };
    const verdict = classifyBash(call.command, ctx.recapPaths);
    return verdict.allowed ? { allowed: true } : { allowed: false, why: verdict.why };
  }
  if (call.kind === 'question' && ctx.config.BYPASS_PREFIXES.length > 0) {
    const texts = call.questions ?? [];
    const bypassed = texts.length > 0 && texts.every((t) => ctx.config.BYPASS_PREFIXES.some((p) => t.trimStart().startsWith(p)));
    if (bypassed) return { allowed: true };
  }
  return { allowed: false };
}

/** The fields that have a value: stored events carry no `undefined`. */
export function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

export type GateStatus = {
  job: string;
  tripped: boolean;
  reason?: string;
  unsummarizedTokens: number;
  unsummarizedInteractions: number;
  threshold: number;
  summaries: number;
  /** ISO time the user's pause ends, while it holds. */
  pausedUntil?: string;
  /** Who paused it: the process and its ancestry, as the kernel told the daemon. */
  pausedBy?: Caller;
  /** The last notice the user was shown in the agent's UI: what it was about, and when (ISO). */
  lastNotice?: { kind: string; time: string };
};

export function gateStatus(state: JobState, config: Config, now?: number): GateStatus {
  return {
    ...(now !== undefined && isPaused(state, now) ? { pausedUntil: new Date(state.pausedUntil!).toISOString(), ...defined({ pausedBy: state.pausedBy }) } : {}),
    ...(state.lastNotice ? { lastNotice: { kind: state.lastNotice.kind, time: new Date(state.lastNotice.time).toISOString() } } : {}),
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    threshold: config.TOKEN_THRESHOLD,
    summaries: state.chain.length,
  };
}
