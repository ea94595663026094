// A session's report: its model's tokens per model and per agent (the main agent and each
// subagent), its tool calls and denials, its interactions, folded from its events; and the
// session's end, recorded once per end with the figures the daemon folded (EndSession).
import type { EndSession } from './commands.js';
import type { Decision } from './decision.js';
import type { AgentTokens, ModelTokens, SessionFigures, StoredEvent, Time, TokenFigures } from './events.js';

export type { AgentTokens, ModelTokens, SessionFigures, TokenFigures };

export type SessionReport = SessionFigures & {
  session: string;
  job: string;
  /** The agent (claude, codex, ...) that ran it, once its end or a denial named it. */
  from?: string;
  started: Time;
  last: Time;
  /** Its last end, if it ended (a resumed session can end again). */
  ended?: { time: Time; reason?: string };
};

const UNKNOWN_MODEL = 'unknown';

export function emptyReport(session: string, job: string, time: Time): SessionReport {
  return {
    session,
    job,
    started: time,
    last: time,
    input: 0,
    output: 0,
    cacheCreation: 0,
    cacheRead: 0,
    byModel: [],
    byAgent: [],
    toolCalls: 0,
    denials: 0,
    interactions: 0,
    countedTokens: 0,
  };
}

/** The session an event is about, if it names one. */
export function sessionOf(event: StoredEvent): string | undefined {
  const session = (event.data as { session?: unknown }).session;
  return typeof session === 'string' && event.type !== 'GateTripped' ? session : undefined;
}

function addTokens(into: TokenFigures, from: TokenFigures): void {
  into.input += from.input;
  into.output += from.output;
  into.cacheCreation += from.cacheCreation;
  into.cacheRead += from.cacheRead;
}

function rowOf<R extends TokenFigures>(rows: R[], found: (row: R) => boolean, make: () => R): R {
  let row = rows.find(found);
  if (row === undefined) rows.push((row = make()));
  return row;
}

const zero = (): TokenFigures => ({ input: 0, output: 0, cacheCreation: 0, cacheRead: 0 });

/**
 * Folds one of the session's events into its report, in place. An ended session's figures
 * are those its SessionEnded recorded; tool calls are known only from that record.
 */
export function foldSession(report: SessionReport, event: StoredEvent): SessionReport {
  const time = event.data.time;
  if (time < report.started) report.started = time;
  if (time > report.last) report.last = time;
  switch (event.type) {
    case 'InteractionRecorded':
      report.interactions += 1;
      if (event.data.counted) report.countedTokens += event.data.tokens;
      return report;
    case 'ToolDenied':
      report.denials += 1;
      return report;
    case 'UsageRecorded': {
      const model = event.data.model ?? UNKNOWN_MODEL;
      addTokens(report, event.data);
      addTokens(
        rowOf(
          report.byModel,
          (r) => r.model === model,
          () => ({ model, ...zero() }),
        ),
        event.data,
      );
      const agent = event.data.agent;
      addTokens(
        rowOf(
          report.byAgent,
          (r) => r.agent === agent,
          () => ({ agent, ...zero() }),
        ),
        event.data,
      );
      return report;
    }
    case 'SessionEnded': {
      const { from, reason, toolCalls } = event.data;
      report.from = from;
      report.toolCalls = Math.max(report.toolCalls, toolCalls);
      report.ended = { time, ...(reason !== undefined ? { reason } : {}) };
      return report;
    }
    default:
      return report;
  }
}

/** Folds a session's events (in log order) into its report; undefined when none is the session's. */
export function sessionReport(session: string, events: Iterable<StoredEvent>): SessionReport | undefined {
  let report: SessionReport | undefined;
  for (const event of events) {
    if (sessionOf(event) !== session) continue;
    report ??= emptyReport(session, (event.data as { job: string }).job, event.data.time);
    foldSession(report, event);
  }
  return report;
}

/** The figures a SessionEnded records, rows in a stable order. */
export function figuresOf(report: SessionReport, toolCalls: number): SessionFigures {
  const { input, output, cacheCreation, cacheRead, denials, interactions, countedTokens } = report;
  return {
    input,
    output,
    cacheCreation,
    cacheRead,
    byModel: [...report.byModel].sort((a, b) => a.model.localeCompare(b.model)),
    byAgent: [...report.byAgent].sort((a, b) => a.agent.localeCompare(b.agent)),
    toolCalls: Math.max(toolCalls, report.toolCalls),
    denials,
    interactions,
    countedTokens,
  };
}

/**
 * The agent said the session ended: its figures so far are recorded. Every end is recorded
 * (a resumed session ends again with its figures to that time), never refused: it is not a
 * tool call, and the agent is leaving.
 */
export function endSession(command: EndSession): Decision<{ recorded: true }> {
  const { job, session, from, reason, started, figures, now } = command;
  return {
    answer: { recorded: true },
    events: [{ type: 'SessionEnded', data: { job, session, from, ...(reason !== undefined ? { reason } : {}), started, ...figures, time: now } }],
  };
}
