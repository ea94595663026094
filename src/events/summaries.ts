// Submitting a summary: validated against the template, appended to its topic's
// hash-linked chain, covering every interaction recorded before it. With ROLLUP_EVERY=N,
// every N unrolled summaries at one level are due to be rolled into one summary of the
// next level: the gate trips for it, and the next summary submitted is that rollup.
import type { SubmitSummary } from './commands.js';
import type { Config } from './config.js';
import { entryHash } from './chain.js';
import type { GateTripped, RecapEvent, SummaryAccepted } from './events.js';
import type { DecideContext, Decision } from './decision.js';
import { headHash, NO_TEXTS, summaryText, unrolled, type JobState, type SummaryTexts } from './jobState.js';
import { validateSummary, type Evidence } from './summaryValidator.js';
import { summaryParts } from './summaryParts.js';
import { judgeReferences } from './references.js';
import { deriveGist } from './gist.js';
import { quotesIn } from './summaryQuotes.js';
import { replaceSecrets } from './secrets.js';

/** How many of the job's newest summaries a new one must not repeat. */
export const EARLIER_CHECKED = 3;

/** A summary accepted, with its number once stored (`seq`, the daemon's), or rejected with its problems. */
export type SubmitAnswer = { accepted: true; entry: SummaryAccepted['data']; seq?: number } | { accepted: false; problems: string[] };

/** The rollup the gate is waiting for, if it is. */
function dueRollup(state: JobState): { level: number; topic?: string } | undefined {
  const gate = state.gate;
  if (!gate.tripped || gate.reason !== 'rollup' || gate.level === undefined) return undefined;
  return { level: gate.level, ...(gate.topic !== undefined ? { topic: gate.topic } : {}) };
}

/** The summary texts a submission is checked against (submitSummary's texts): load them first. */
export function submitSeqs(state: JobState): number[] {
  const rollup = dueRollup(state);
  if (rollup) return unrolled(state, rollup.level - 1, rollup.topic).map((e) => e.seq);
  return state.chain.slice(-EARLIER_CHECKED).map((e) => e.seq);
}

/**
 * What a summary is checked against: the window's counted interactions (all of them when
 * none counts) and the job's newest
 * summaries; for a rollup, the summaries it rolls up (it is grounded in them and must not
 * paste them), which are also the newest. A verbatim section may quote the user's prompts of
 * the window; a rollup's, the quotes of the summaries it rolls up (checked when they were accepted).
 */
function evidenceFor(state: JobState, texts: SummaryTexts, verbatim: readonly string[]): Evidence {
  const seqs = submitSeqs(state);
  if (dueRollup(state)) {
    const material = seqs.map((seq) => summaryText(texts, seq));
    const quotes = { texts: material.flatMap((text) => quotesIn(text, verbatim)), what: 'the quotes of the summaries rolled up' };
    return { material, what: 'summaries rolled up', earlier: [], quotes };
  }
  // The user's own interactions: a task's notification or a compaction summary is noise to name.
  const counted = state.pending.filter((p) => p.counted);
  return {
    material: (counted.length > 0 ? counted : state.pending).map((p) => p.text),
    what: 'interactions',
    earlier: seqs.map((seq) => ({ seq, text: summaryText(texts, seq) })),
    quotes: { texts: state.pending.filter((p) => p.kind === 'prompt').map((p) => p.text), what: "the user's prompts since the last summary" },
  };
}

export function rollupRules(config: Config): Config {
  return { ...config, SUMMARY_MIN_TOKENS: config.ROLLUP_MIN_TOKENS, SUMMARY_MAX_TOKENS: config.ROLLUP_MAX_TOKENS };
}

export function submitSummary(command: SubmitSummary, state: JobState, ctx: DecideContext): Decision<SubmitAnswer> {
  const { job, now } = command;
  // Checked and stored as it will be kept: with its secrets replaced, in the text, gist and Files reasons alike.
  const { text, secrets } = replaceSecrets(command.text, command.secrets ?? []);
  const rollup = dueRollup(state);
  if (rollup && command.topic !== undefined && command.topic !== rollup.topic) {
    const due = rollup.topic === undefined ? 'the main chain' : `topic ${rollup.topic}`;
    return refuse([`a rollup of ${due} is due first; submit it ${rollup.topic === undefined ? 'without --topic' : `with --topic ${rollup.topic}`}`]);
  }
  if (!rollup && state.pending.length === 0 && !state.gate.tripped) {
    return refuse(['nothing to summarize: no interaction was recorded since the last summary']);
  }
  const rules = rollup ? rollupRules(ctx.config) : ctx.config;
  // The Files section is judged by its own rules, not the band's or the floors'.
  const parts = summaryParts(text, rules.REQUIRED_SECTIONS);
  const byAgent = ctx.config.GIST === 'agent';
  const validation = validateSummary(parts.body, rules, ctx.count, evidenceFor(state, ctx.texts ?? NO_TEXTS, rules.VERBATIM_SECTIONS), byAgent ? { text: parts.gist } : undefined);
  const files = judgeReferences(parts.references, command.files ?? {}, ctx.config.REF_READ_BUDGET);
  const problems = [...validation.problems, ...parts.problems, ...files.problems];
  const { sections } = validation;
  // Stored is the whole text's size, Files section included: the memory shows it whole.
  const tokens = text === parts.body ? validation.tokens : ctx.count(text);
  if (problems.length > 0) {
    return { answer: { accepted: false, problems }, events: [{ type: 'SummaryRejected', data: { job, problems, tokens, time: now } }] };
  }

  const topic = rollup ? rollup.topic : command.topic;
  const level = rollup?.level ?? 0;
  const rolled = rollup ? unrolled(state, level - 1, topic) : [];
  const coversThrough = rollup ? Math.max(...rolled.map((e) => e.coversThrough)) : (state.pending.at(-1)?.seq ?? state.chain.at(-1)?.coversThrough ?? 0);
  const content = {
    job,
    level,
    sections,
    text,
    tokens,
    coversThrough,
    ...(topic !== undefined ? { topic } : {}),
    ...(rollup ? { rolls: rolled.map((e) => e.seq) } : {}),
    gist: byAgent ? parts.gist! : deriveGist(parts.body),
    gistBy: byAgent ? ('agent' as const) : ('recap' as const),
    ...(files.accepted.length > 0 ? { refs: files.accepted, ...(command.root !== undefined ? { filesRoot: command.root } : {}) } : {}),
    ...(secrets.length > 0 ? { secrets } : {}),
    time: now,
  };
  const prevHash = headHash(state, topic);
  const entry: SummaryAccepted['data'] = { ...content, prevHash, hash: entryHash(prevHash, content) };
  const events: RecapEvent[] = [{ type: 'SummaryAccepted', data: entry }];
  // A summary covers every pending interaction; a rollup covers none of them.
  const unsummarizedAfter = rollup ? state.unsummarizedTokens : 0;
  const next = rollupDue(state, ctx.config, level, topic, unsummarizedAfter, now);
  if (next) events.push(next);
  return { answer: { accepted: true, entry }, events };
}

/** After a summary at `level`: a rollup trip when it makes N unrolled summaries there. */
function rollupDue(state: JobState, config: Config, level: number, topic: string | undefined, unsummarizedTokens: number, now: number): GateTripped | undefined {
  const every = config.ROLLUP_EVERY;
  if (every === 0) return undefined;
  const waiting = unrolled(state, level, topic).length + 1;
  if (waiting < every) return undefined;
  return {
    type: 'GateTripped',
    data: {
      job: state.job,
      reason: 'rollup',
      unsummarizedTokens,
      limit: every,
      measured: waiting,
      level: level + 1,
      ...(topic !== undefined ? { topic } : {}),
      time: now,
    },
  };
}

function refuse(problems: string[]): Decision<SubmitAnswer> {
  return { answer: { accepted: false, problems }, events: [] };
}
