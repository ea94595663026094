// `recap eval --log`: the windows of a recorded log replayed against today's summary rules. Each
// job's events are folded into its state as the daemon folded them; at each accepted summary
// (level 0: a rollup's window is summaries, not interactions) its window is the interactions
// pending then (and the tool calls the log sampled since the job's last summary: a session's
// first calls, recorded once per session, so later calls are not in it), and its text is submitted again to `submitSummary` with the configuration the
// log says was in force, so a summary accepted then and rejected now shows as a regression.
// The memory is the one the log's own history leaves after the summary.
import { configSchema, DEFAULT_CONFIG, type Config } from './config.js';
import type { SampledCall, SummaryAccepted, StoredEvent } from './events.js';
import { memoryBudget } from './gateMessages.js';
import { evolve, initialJobState, type JobState } from './jobState.js';
import { memoryText } from './memory.js';
import { factKey, type ReferenceFacts } from './references.js';
import { submitSummary } from './summaries.js';
import { summaryParts } from './summaryParts.js';
import type { TokenCounter } from './tokens.js';

export type WindowInteraction = { seq: number; kind: string; text: string; tokens: number; redacted: boolean };

/** A tool call as the log samples them (a session's first calls, FirstCallsRecorded): one line, `read /src/a.ts`. */
export type WindowCall = { seq: number; text: string };

/** What today's rules say of a summary the log accepted; a redacted one has no text to judge. */
export type VerdictNow = 'accepted' | 'rejected' | 'redacted';

export type ReplayedWindow = {
  job: string;
  /** The summary's place among the job's level-0 summaries, from 1. */
  index: number;
  /** The SummaryAccepted event's sequence number in the log. */
  seq: number;
  time: number;
  interactions: WindowInteraction[];
  /** The tool calls whose record falls in the window. */
  calls: WindowCall[];
  /** The window's tokens, as the log counted them. */
  windowTokens: number;
  summary: string;
  summaryTokens: number;
  now: VerdictNow;
  problems: string[];
  /** The memory a next session was handed after it, and its size in tokens. */
  memory: string;
  memoryTokens: number;
};

type Replay = {
  states: Map<string, JobState>;
  texts: Map<number, string>;
  configs: Map<string | undefined, Config>;
  index: Map<string, number>;
  /** Interactions whose text `recap redact` removed. */
  redacted: Set<number>;
  /** Each job's sampled tool calls since its last summary. */
  calls: Map<string, WindowCall[]>;
};

/** Today's configuration schema over the values the log recorded; values it no longer takes leave the defaults. */
function recordedConfig(values: Record<string, unknown>): Config {
  const parsed = configSchema.safeParse(values);
  return parsed.success ? parsed.data : DEFAULT_CONFIG;
}

/** The files a summary's `## Files` section named, as the daemon found them when it accepted it. */
function recordedFacts(entry: SummaryAccepted['data'], requiredSections: readonly string[]): ReferenceFacts {
  const refs = entry.refs ?? [];
  const named = summaryParts(entry.text, requiredSections).references;
  return Object.fromEntries(
    named.flatMap((ref, i) => {
      const found = refs[i];
      if (found === undefined) return [];
      return [[factKey(ref), { state: 'file' as const, path: found.path, lines: Number.MAX_SAFE_INTEGER, sha256: found.sha256, tokens: found.tokens }]];
    }),
  );
}

/** Today's verdict on an accepted summary, judged in the state the daemon had just before it. */
function judgeAgain(
  state: JobState,
  entry: SummaryAccepted['data'],
  config: Config,
  count: TokenCounter,
  texts: ReadonlyMap<number, string>,
): { now: VerdictNow; problems: string[] } {
  if (entry.redacted) return { now: 'redacted', problems: [] };
  const ctx = { config, count, recapPaths: new Set<string>(), protected: { paths: [], home: '' }, texts };
  const command = {
    type: 'SubmitSummary' as const,
    job: entry.job,
    text: entry.text,
    now: entry.time,
    ...(entry.topic !== undefined ? { topic: entry.topic } : {}),
    files: recordedFacts(entry, config.REQUIRED_SECTIONS),
    ...(entry.filesRoot !== undefined ? { root: entry.filesRoot } : {}),
  };
  const { answer } = submitSummary(command, state, ctx);
  return answer.accepted ? { now: 'accepted', problems: [] } : { now: 'rejected', problems: answer.problems };
}

function accepted(r: Replay, event: StoredEvent & { type: 'SummaryAccepted' }, count: TokenCounter): ReplayedWindow | undefined {
  const entry = event.data;
  const state = r.states.get(entry.job) ?? initialJobState(entry.job);
  r.states.set(entry.job, state);
  const config = r.configs.get(entry.job) ?? r.configs.get(undefined) ?? DEFAULT_CONFIG;
  const window = entry.level === 0 ? state.pending.filter((p) => p.seq <= entry.coversThrough) : [];
  const verdict = entry.level === 0 ? judgeAgain(state, entry, config, count, r.texts) : undefined;
  evolve(state, event);
  r.texts.set(event.seq, entry.redacted ? '[redacted]' : entry.text);
  if (verdict === undefined) return undefined;
  const index = (r.index.get(entry.job) ?? 0) + 1;
  r.index.set(entry.job, index);
  const interactions = window.map((p) => ({ seq: p.seq, kind: p.kind, text: p.text, tokens: p.tokens, redacted: r.redacted.has(p.seq) }));
  const calls = r.calls.get(entry.job) ?? [];
  r.calls.delete(entry.job);
  // The memory of an open gate: a rollup due next would hand over its demand, not the memory.
  const memory = memoryText({ ...state, gate: { tripped: false } }, memoryBudget(config), count, r.texts, 'recap');
  return {
    job: entry.job,
    index,
    seq: event.seq,
    time: entry.time,
    interactions,
    calls,
    windowTokens: interactions.reduce((sum, p) => sum + p.tokens, 0),
    summary: entry.text,
    summaryTokens: entry.tokens,
    ...verdict,
    memory,
    memoryTokens: count(memory),
  };
}

/** A sampled call as one line: its kind, then what it named. */
const callLine = (call: SampledCall): string => [call.kind, call.program, call.glob, ...call.paths].filter((part) => part !== undefined && part !== '').join(' ');

/** Every level-0 summary of the log (events in sequence order) with its window, its verdict today and the memory after it. */
export function replayWindows(events: Iterable<StoredEvent>, count: TokenCounter): ReplayedWindow[] {
  const r: Replay = { states: new Map(), texts: new Map(), configs: new Map(), index: new Map(), redacted: new Set(), calls: new Map() };
  const windows: ReplayedWindow[] = [];
  for (const event of events) {
    if (event.type === 'ConfigApplied') {
      r.configs.set(event.data.job, recordedConfig(event.data.values));
      continue;
    }
    if (event.type === 'SummaryAccepted') {
      const window = accepted(r, event, count);
      if (window) windows.push(window);
      continue;
    }
    if (event.type === 'SummaryAmended') r.texts.set(event.data.entry, event.data.redacted ? '[redacted]' : event.data.text);
    if (event.type === 'InteractionRecorded' && event.data.redacted) r.redacted.add(event.seq);
    if (event.type === 'FirstCallsRecorded')
      r.calls.set(event.data.job, [...(r.calls.get(event.data.job) ?? []), ...event.data.calls.map((c) => ({ seq: event.seq, text: callLine(c) }))]);
    const job = (event.data as { job?: unknown }).job;
    if (typeof job !== 'string') continue;
    const state = r.states.get(job) ?? initialJobState(job);
    r.states.set(job, state);
    evolve(state, event);
  }
  return windows;
}

/** The windows' figures: how many today's rules reject of those the log accepted, and the memory's size. */
export function windowFigures(windows: readonly ReplayedWindow[]): {
  windows: number;
  accepted: number;
  rejected: number;
  redacted: number;
  memory: { mean: number | null; max: number | null };
} {
  const sizes = windows.map((w) => w.memoryTokens);
  const tally = (now: VerdictNow) => windows.filter((w) => w.now === now).length;
  return {
    windows: windows.length,
    accepted: tally('accepted'),
    rejected: tally('rejected'),
    redacted: tally('redacted'),
    memory: {
      mean: sizes.length === 0 ? null : Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length),
      max: sizes.length === 0 ? null : Math.max(...sizes),
    },
  };
}
