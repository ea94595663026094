// The decider: from a command and a job's state, the answer and the events to store.
// One function per command; none reads the clock, the disk or the network.
import type { CheckTool, RecordInteraction, SubmitSummary } from './commands.js';
import { CommandRefused } from './commands.js';
import type { Config } from './config.js';
import { entryHash } from './chain.js';
import type { DenialCause, GateTripped, RecapEvent, SummaryAccepted } from './events.js';
import { denyReason, protectionReason } from './gateMessages.js';
import { headHash, type JobState } from './jobState.js';
import { validateSummary } from './summaryValidator.js';
import type { TokenCounter } from './tokens.js';
import { protectionRefusal, type ProtectedState } from './protection.js';
import { classifyBash } from './whitelist.js';

export type DecideContext = {
  config: Config;
  count: TokenCounter;
  /** Absolute paths of the real recap executable, accepted as the command word. */
  recapPaths: ReadonlySet<string>;
  /** recap's own files, off limits to the agent. */
  protected: ProtectedState;
};

export type Decision<Answer> = { answer: Answer; events: RecapEvent[] };

export type CheckAnswer = { allow: true } | { allow: false; reason: string };
export type SubmitAnswer =
  | { accepted: true; entry: SummaryAccepted['data'] }
  | { accepted: false; problems: string[] };

export function recordInteraction(
  command: RecordInteraction,
  state: JobState,
  ctx: DecideContext,
): Decision<{ tokens: number }> {
  if (command.text.trim() === '') throw new CommandRefused('the interaction text is empty; give the text to record');
  const { job, kind, text, now } = command;
  const tokens = ctx.count(text);
  const counted = ctx.config.COUNT_KINDS.includes(kind);
  const events: RecapEvent[] = [
    {
      type: 'InteractionRecorded',
      data: { job, kind, text, tokens, counted, ...optional(command), time: now },
    },
  ];
  const unsummarized = state.unsummarizedTokens + (counted ? tokens : 0);
  if (!state.gate.tripped && unsummarized >= ctx.config.TOKEN_THRESHOLD) {
    events.push(thresholdTripped(job, unsummarized, ctx.config, now));
  }
  return { answer: { tokens }, events };
}

export function checkTool(command: CheckTool, state: JobState, ctx: DecideContext): Decision<CheckAnswer> {
  const { job, tool, now } = command;
  const refusal = protectionRefusal(tool, command.input, command.cwd, ctx.protected, ctx.recapPaths);
  if (refusal) return { answer: { allow: false, reason: protectionReason(refusal) }, events: [toolDenied(command, 'protected')] };
  const events: RecapEvent[] = [];
  let gate = state.gate;
  if (!gate.tripped) {
    // The threshold may have been lowered since the last record.
    if (state.unsummarizedTokens < ctx.config.TOKEN_THRESHOLD) return { answer: { allow: true }, events };
    const tripped = thresholdTripped(job, state.unsummarizedTokens, ctx.config, now);
    events.push(tripped);
    gate = { tripped: true, ...tripped.data, since: now };
  }
  const verdict = toolVerdict(command, ctx);
  if (verdict.allowed) return { answer: { allow: true }, events };
  events.push(toolDenied(command, 'gate'));
  const reason = denyReason({ ...state, gate }, ctx.config, verdict.why);
  return { answer: { allow: false, reason }, events };
}

export function submitSummary(command: SubmitSummary, state: JobState, ctx: DecideContext): Decision<SubmitAnswer> {
  const { job, text, now } = command;
  if (state.pending.length === 0 && !state.gate.tripped) {
    return { answer: { accepted: false, problems: ['nothing to summarize: no interaction was recorded since the last summary'] }, events: [] };
  }
  const { problems, tokens, sections } = validateSummary(text, ctx.config, ctx.count);
  if (problems.length > 0) {
    return {
      answer: { accepted: false, problems },
      events: [{ type: 'SummaryRejected', data: { job, problems, tokens, time: now } }],
    };
  }
  const coversThrough = state.pending.at(-1)?.seq ?? state.chain.at(-1)?.coversThrough ?? 0;
  const content = { job, level: 0, sections, text, tokens, coversThrough, time: now };
  const prevHash = headHash(state);
  const entry: SummaryAccepted['data'] = { ...content, prevHash, hash: entryHash(prevHash, content) };
  return { answer: { accepted: true, entry }, events: [{ type: 'SummaryAccepted', data: entry }] };
}

function toolDenied(command: CheckTool, cause: DenialCause): RecapEvent {
  const { job, tool, now } = command;
  return { type: 'ToolDenied', data: { job, tool, cause, ...(command.session !== undefined ? { session: command.session } : {}), time: now } };
}

type ToolVerdict = { allowed: true } | { allowed: false; why?: string };

/** While the gate is tripped: the way out (recap's own commands) and bypassed questions pass. */
function toolVerdict(command: CheckTool, ctx: DecideContext): ToolVerdict {
  const input = command.input;
  if (command.tool === 'Bash') {
    const shell = field(input, 'command');
    if (typeof shell !== 'string') return { allowed: false, why: 'the Bash call has no command' };
    const verdict = classifyBash(shell, ctx.recapPaths);
    return verdict.allowed ? { allowed: true } : { allowed: false, why: verdict.why };
  }
  if (command.tool === 'AskUserQuestion' && ctx.config.BYPASS_PREFIXES.length > 0) {
    const questions = field(input, 'questions');
    const texts = Array.isArray(questions) ? questions.map((q) => field(q, 'question')) : [];
    const bypassed =
      texts.length > 0 &&
      texts.every((t) => typeof t === 'string' && ctx.config.BYPASS_PREFIXES.some((p) => t.trimStart().startsWith(p)));
    if (bypassed) return { allowed: true };
  }
  return { allowed: false };
}

function thresholdTripped(job: string, unsummarizedTokens: number, config: Config, now: number): GateTripped {
  return {
    type: 'GateTripped',
    data: { job, reason: 'threshold', unsummarizedTokens, limit: config.TOKEN_THRESHOLD, time: now },
  };
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function optional(command: RecordInteraction): { session?: string; agent?: string } {
  return {
    ...(command.session !== undefined ? { session: command.session } : {}),
    ...(command.agent !== undefined ? { agent: command.agent } : {}),
  };
}

export type GateStatus = {
  job: string;
  tripped: boolean;
  reason?: string;
  unsummarizedTokens: number;
  unsummarizedInteractions: number;
  threshold: number;
  summaries: number;
};

export function gateStatus(state: JobState, config: Config): GateStatus {
  return {
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    threshold: config.TOKEN_THRESHOLD,
    summaries: state.chain.length,
  };
}
