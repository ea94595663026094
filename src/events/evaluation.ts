// `recap eval`'s judging: each labelled case is submitted the way the daemon judges a
// submission (the job's state folded from its events, then submitSummary), and the verdicts
// are scored as a detector of junk: a rejected junk case is a true positive, a rejected
// genuine case a false positive, an accepted junk case a false negative. Accepted cases also
// give the memory the next session would be handed (memory.ts, in tokens).
import { configSchema, type Config } from './config.js';
import type { EvalCase, Label } from './evalCorpus.js';
import type { RecapEvent, StoredEvent } from './events.js';
import { memoryBudget } from './gateMessages.js';
import { evolve, initialJobState, type JobState } from './jobState.js';
import { memoryText } from './memory.js';
import { submitSummary } from './summaries.js';
import type { TokenCounter } from './tokens.js';

export type Verdict = {
  name: string;
  label: Label;
  profile: string;
  domain: string;
  accepted: boolean;
  problems: string[];
  /** The summary's tokens as the daemon counts them. */
  tokens: number;
  /** An accepted summary's memory as a next session is handed it, in tokens. */
  memoryTokens?: number;
  /** That memory's text (`recap eval --probes` shows it to the model; the figures leave it out). */
  memory?: string;
};

const JOB = 'eval';

/** The rules a case is judged by: the defaults in its profile, the gist derived (the corpus judges sections). */
export const caseConfig = (c: Pick<EvalCase, 'profile'>): Config => configSchema.parse({ PROFILE: c.profile, GIST: 'recap' });

/** The job as it stands when the case's summary is submitted, and the summary texts its log holds. */
function caseState(c: EvalCase, count: TokenCounter, now: number): { state: JobState; texts: Map<number, string>; seq: number } {
  const state = initialJobState(JOB);
  const texts = new Map<number, string>();
  // Numbered as in a log with history before the case (a junk case's expected message may name #100).
  let seq = 99;
  const fold = (event: RecapEvent) => evolve(state, { ...event, seq: (seq += 1), version: 1 } as StoredEvent);
  const accept = (text: string) => {
    fold({ type: 'SummaryAccepted', data: { job: JOB, level: 0, sections: [], text, tokens: count(text), coversThrough: 0, hash: '', prevHash: '', time: now } });
    texts.set(seq, text);
  };
  if (c.rolled.length > 0) {
    c.rolled.forEach(accept);
    fold({ type: 'GateTripped', data: { job: JOB, reason: 'rollup', unsummarizedTokens: 0, limit: c.rolled.length, measured: c.rolled.length, level: 1, time: now } });
    return { state, texts, seq };
  }
  c.earlier.forEach(accept);
  for (const text of c.interactions) fold({ type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text, tokens: count(text), counted: true, time: now } });
  return { state, texts, seq };
}

/** The daemon's verdict on the case's summary, and the memory an accepted one leaves. */
export function judgeCase(c: EvalCase, count: TokenCounter, now: number): Verdict {
  const config = caseConfig(c);
  const { state, texts, seq } = caseState(c, count, now);
  const ctx = { config, count, recapPaths: new Set<string>(), protected: { paths: [], home: '' }, texts };
  const { answer, events } = submitSummary({ type: 'SubmitSummary', job: JOB, text: c.summary, now }, state, ctx);
  const base = { name: c.name, label: c.label, profile: c.profile, domain: c.domain };
  if (!answer.accepted) {
    const rejected = events.find((e) => e.type === 'SummaryRejected');
    return { ...base, accepted: false, problems: answer.problems, tokens: rejected?.type === 'SummaryRejected' ? rejected.data.tokens : count(c.summary) };
  }
  events.forEach((event, i) => evolve(state, { ...event, seq: seq + 1 + i, version: 1 } as StoredEvent));
  texts.set(seq + 1, answer.entry.text);
  // The memory of an open gate: a rollup due next would hand over its demand, not the memory.
  state.gate = { tripped: false };
  const memory = memoryText(state, memoryBudget(config), count, texts, 'recap');
  return { ...base, accepted: true, problems: [], tokens: answer.entry.tokens, memoryTokens: count(memory), memory };
}

/** How well the verdicts separate junk from genuine; a ratio with nothing to divide is null. */
export type Figures = {
  genuine: number;
  junk: number;
  /** Junk rejected. */
  truePositives: number;
  /** Genuine rejected. */
  falsePositives: number;
  /** Junk accepted. */
  falseNegatives: number;
  /** Of the rejected, the share that was junk. */
  precision: number | null;
  /** Of the junk, the share rejected. */
  recall: number | null;
  /** The memory after each accepted summary, in tokens. */
  memory: { windows: number; mean: number | null; max: number | null };
};

export type Score = { all: Figures; byProfile: Record<string, Figures>; byDomain: Record<string, Figures> };

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

export function figures(verdicts: readonly Verdict[]): Figures {
  const tally = (label: Label, accepted: boolean) => verdicts.filter((v) => v.label === label && v.accepted === accepted).length;
  const truePositives = tally('junk', false);
  const falsePositives = tally('genuine', false);
  const falseNegatives = tally('junk', true);
  const sizes = verdicts.flatMap((v) => (v.memoryTokens === undefined ? [] : [v.memoryTokens]));
  return {
    genuine: verdicts.filter((v) => v.label === 'genuine').length,
    junk: verdicts.filter((v) => v.label === 'junk').length,
    truePositives,
    falsePositives,
    falseNegatives,
    precision: ratio(truePositives, truePositives + falsePositives),
    recall: ratio(truePositives, truePositives + falseNegatives),
    memory: {
      windows: sizes.length,
      mean: sizes.length === 0 ? null : Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length),
      max: sizes.length === 0 ? null : Math.max(...sizes),
    },
  };
}

function grouped(verdicts: readonly Verdict[], key: (v: Verdict) => string): Record<string, Figures> {
  const names = [...new Set(verdicts.map(key))].sort();
  return Object.fromEntries(names.map((name) => [name, figures(verdicts.filter((v) => key(v) === name))]));
}

export function score(verdicts: readonly Verdict[]): Score {
  return { all: figures(verdicts), byProfile: grouped(verdicts, (v) => v.profile), byDomain: grouped(verdicts, (v) => v.domain) };
}
