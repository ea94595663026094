// `recap eval --probes`' reading and scoring: the model's JSON answers read (a reply wrapped in a
// code fence is read too; anything else is a ProbeReplyError saying what was wrong), and each
// question's judged score (0-5) gathered per window and per kind, as a share of the most (0-1).
import { z } from 'zod';

export const PROBE_KINDS = ['recall', 'artifacts', 'next', 'directives'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** What the model is shown of a window: the interactions (questions, judging) or the summary and memory (answers). */
export type ProbeWindow = {
  name: string;
  interactions: { seq: number; kind: string; text: string; redacted: boolean }[];
  /** The tool calls the log sampled in the window, one line each (none for a corpus case). */
  calls: { seq: number; text: string }[];
  summary: string;
  memory: string;
};

export type Probe = { kind: ProbeKind; question: string; answer: string; score: number; why: string };

/** Each kind's mean score over the most (5), 0-1; a kind with no question is null. */
export type KindScores = Record<ProbeKind, number | null>;

export type WindowProbes = { name: string; probes: Probe[]; byKind: KindScores; score: number | null };

export const MAX_SCORE = 5;

/** A model's reply that is not the JSON asked for. */
export class ProbeReplyError extends Error {}

const questionsSchema = z.object({ questions: z.array(z.object({ kind: z.enum(PROBE_KINDS), question: z.string().min(1) })).min(1) });
const answersSchema = z.object({ answers: z.array(z.object({ id: z.number().int(), answer: z.string() })) });
const scoresSchema = z.object({ scores: z.array(z.object({ id: z.number().int(), score: z.number().min(0).max(MAX_SCORE), why: z.string().default('') })) });

function json<T>(reply: string, schema: z.ZodType<T>, asked: string): T {
  const body = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(reply)?.[1] ?? reply;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ProbeReplyError(`its reply is not JSON (it began: ${JSON.stringify(reply.slice(0, 80))}); ${asked}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ProbeReplyError(`its reply is not the JSON asked for (${parsed.error.issues[0]?.path.join('.') || 'the top'}: ${parsed.error.issues[0]?.message}); ${asked}`);
  return parsed.data;
}

export function readQuestions(reply: string): { kind: ProbeKind; question: string }[] {
  return json(reply, questionsSchema, 'it was asked for {"questions":[{"kind","question"}]}').questions;
}

/** The answers by question, in order; a question the model left out is answered "" (and judged so). */
export function readAnswers(reply: string, questions: number): string[] {
  const { answers } = json(reply, answersSchema, 'it was asked for {"answers":[{"id","answer"}]}');
  return Array.from({ length: questions }, (_, i) => answers.find((a) => a.id === i + 1)?.answer ?? '');
}

/** The scores by question, in order; a question the judge left out scores 0. */
export function readScores(reply: string, questions: number): { score: number; why: string }[] {
  const { scores } = json(reply, scoresSchema, 'it was asked for {"scores":[{"id","score","why"}]}');
  return Array.from({ length: questions }, (_, i) => {
    const s = scores.find((x) => x.id === i + 1);
    return s === undefined ? { score: 0, why: 'not judged' } : { score: s.score, why: s.why };
  });
}

const share = (scores: readonly number[]): number | null => (scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length / MAX_SCORE);

export function kindScores(probes: readonly Pick<Probe, 'kind' | 'score'>[]): KindScores {
  return Object.fromEntries(PROBE_KINDS.map((k) => [k, share(probes.filter((p) => p.kind === k).map((p) => p.score))])) as KindScores;
}

/** A window's score: each kind it was asked of weighs the same, whatever its number of questions. */
export function windowScore(name: string, probes: Probe[]): WindowProbes {
  const byKind = kindScores(probes);
  const asked = PROBE_KINDS.flatMap((k) => (byKind[k] === null ? [] : [byKind[k]]));
  return { name, probes, byKind, score: asked.length === 0 ? null : asked.reduce((a, b) => a + b, 0) / asked.length };
}

/** Over every window: each kind's share of every question of that kind, and the mean of the windows' scores. */
export function probeTotals(windows: readonly WindowProbes[]): { byKind: KindScores; score: number | null } {
  const scored = windows.flatMap((w) => (w.score === null ? [] : [w.score]));
  return { byKind: kindScores(windows.flatMap((w) => w.probes)), score: scored.length === 0 ? null : scored.reduce((a, b) => a + b, 0) / scored.length };
}
