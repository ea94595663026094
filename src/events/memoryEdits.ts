// The user's edits of the job's memory: a corrected text for a summary (`recap amend N`), and
// the removal of a summary's or an interaction's text (`recap redact N`). Neither touches a
// summary's place or hash in its chain; both are events `recap verify` checks.
import type { AmendSummary, RedactEntry } from './commands.js';
import { replaceSecrets } from './secrets.js';
import { CommandRefused } from './commands.js';
import { amendmentHash } from './chain.js';
import type { EntryRedacted, RecapEvent, StoredEvent, SummaryAmended } from './events.js';
import type { DecideContext, Decision } from './decision.js';
import { entryText } from './entryText.js';
import { deriveGist } from './gist.js';
import type { ChainEntry, JobState } from './jobState.js';
import { judgeReferences } from './references.js';
import { rollupRules } from './summaries.js';
import { summaryParts } from './summaryParts.js';
import { quotesIn } from './summaryQuotes.js';
import { validateSummary } from './summaryValidator.js';

export type AmendAnswer = { amended: true; seq: number; entry: number; tokens: number; gist: string } | { amended: false; problems: string[] };

export type RedactAnswer = { what: 'summary' | 'interaction'; already: boolean; amendments: number[] };

/** The summary #`seq` of the job, or a refusal naming what the job's summaries are. */
function summaryOf(state: JobState, seq: number, verb: string): ChainEntry {
  const entry = state.chain.find((e) => e.seq === seq);
  if (entry !== undefined) return entry;
  if (state.imported.some((e) => e.seq === seq)) {
    throw new CommandRefused(`#${seq} is another machine's summary (recap sync): it is that machine's to ${verb}; recap ${verb} there, and the change travels at its next sync`);
  }
  const seqs = state.chain.map((e) => e.seq);
  const near = [seqs.findLast((n) => n < seq), seqs.find((n) => n > seq)].flatMap((n) => (n === undefined ? [] : [`#${n}`]));
  throw new CommandRefused(
    seqs.length === 0
      ? `#${seq} is not a summary of job ${state.job}: the job has no summaries to ${verb} yet`
      : `#${seq} is not a summary of job ${state.job}; recap chain lists them (the nearest: ${near.join(', ')})`,
  );
}

/** The texts an amendment is checked against: the entry's text in force (its quotes stay quotable), if it is a summary. */
export const amendSeqs =
  (entry: number) =>
  (state: JobState): number[] =>
    state.chain.some((e) => e.seq === entry) ? [entry] : [];

/**
 * Validated as a summary of the entry's level under the job's configuration; no window to be
 * grounded in (the user writes it), and a verbatim section may keep the quotes the text it
 * replaces had.
 */
export function amendSummary(command: AmendSummary, state: JobState, ctx: DecideContext): Decision<AmendAnswer> {
  const { job, now } = command;
  const entry = summaryOf(state, command.entry, 'amend');
  // Checked and stored as it will be kept: with its secrets replaced, as a submission is.
  const { text, secrets } = replaceSecrets(command.text, command.secrets ?? []);
  const rules = entry.level > 0 ? rollupRules(ctx.config) : ctx.config;
  const current = ctx.texts?.get(entry.seq);
  if (current !== undefined && current.trim() === text.trim()) {
    return { answer: { amended: false, problems: [`the text is the same as summary #${entry.seq}'s now; change what is wrong in it`] }, events: [] };
  }
  const parts = summaryParts(text, rules.REQUIRED_SECTIONS);
  const byAgent = ctx.config.GIST === 'agent';
  const quotable = current !== undefined && entryText(entry).state !== 'redacted' ? quotesIn(current, rules.VERBATIM_SECTIONS) : [];
  const evidence = { material: [], what: 'interactions', earlier: [], quotes: { texts: quotable, what: `summary #${entry.seq}'s quotes` } };
  const validation = validateSummary(parts.body, rules, ctx.count, evidence, byAgent ? { text: parts.gist } : undefined);
  const files = judgeReferences(parts.references, command.files ?? {}, ctx.config.REF_READ_BUDGET);
  const problems = [...validation.problems, ...parts.problems, ...files.problems];
  if (problems.length > 0) return { answer: { amended: false, problems }, events: [] };
  const tokens = text === parts.body ? validation.tokens : ctx.count(text);
  const content = {
    job,
    entry: entry.seq,
    text,
    sections: validation.sections,
    tokens,
    gist: byAgent ? parts.gist! : deriveGist(parts.body),
    gistBy: byAgent ? ('agent' as const) : ('recap' as const),
    ...(files.accepted.length > 0 ? { refs: files.accepted, ...(command.root !== undefined ? { filesRoot: command.root } : {}) } : {}),
    ...(command.by !== undefined ? { by: command.by } : {}),
    ...(secrets.length > 0 ? { secrets } : {}),
    time: now,
  };
  const data: SummaryAmended['data'] = { ...content, entryHash: command.entryHash, hash: amendmentHash(command.entryHash, content) };
  // Its number is the log's: the op reads it from what was stored.
  return { answer: { amended: true, seq: 0, entry: entry.seq, tokens, gist: data.gist }, events: [{ type: 'SummaryAmended', data }] };
}

/** A summary's text (with its amendments') or an interaction's; anything else holds none to redact. */
export function redactEntry(command: RedactEntry, state: JobState): Decision<RedactAnswer> {
  const { job, seq, target, now } = command;
  if (target === undefined) throw new CommandRefused(`#${seq} is not in the log; recap log lists the events by number`);
  if (target.job !== job) throw new CommandRefused(`#${seq} is not of job ${job}${target.job !== undefined ? ` but of job ${target.job}: add --job ${target.job}` : ''}`);
  const common = { job, seq, ...(command.reason !== undefined ? { reason: command.reason } : {}), ...(command.by !== undefined ? { by: command.by } : {}), time: now };
  switch (target.type) {
    case 'SummaryAccepted': {
      const entry = summaryOf(state, seq, 'redact');
      const amendments = entry.amendments ?? [];
      if (entryText(entry).state === 'redacted') return { answer: { what: 'summary', already: true, amendments }, events: [] };
      const event: EntryRedacted = {
        type: 'EntryRedacted',
        data: { ...common, what: 'summary', ...(amendments.length > 0 ? { amendments } : {}), ...(target.hash !== undefined ? { hash: target.hash } : {}) },
      };
      return { answer: { what: 'summary', already: false, amendments }, events: [event] };
    }
    case 'InteractionRecorded': {
      if (target.redacted === true) return { answer: { what: 'interaction', already: true, amendments: [] }, events: [] };
      const event: RecapEvent = { type: 'EntryRedacted', data: { ...common, what: 'interaction' } };
      return { answer: { what: 'interaction', already: false, amendments: [] }, events: [event] };
    }
    case 'SummaryAmended':
      throw new CommandRefused(
        `#${seq} is an amendment of summary #${target.entry ?? '?'}: recap redact ${target.entry ?? 'N'} removes the summary's text with every amendment of it`,
      );
    case 'SummaryImported':
      throw new CommandRefused(
        `#${seq} is another machine's summary (recap sync): it is that machine's to redact; recap redact there removes its text, and every machine's copy goes at its next sync`,
      );
    default:
      throw new CommandRefused(`#${seq} is a ${target.type} event, which holds no summary or prompt text; recap redact takes a summary's or an interaction's number`);
  }
}

/**
 * The event as the log keeps it after a redaction: its text and everything made from it
 * (sections, gist, the files it names) gone, its numbers, links and hashes kept.
 */
export function redactedCopy(event: StoredEvent, decisions?: number): StoredEvent {
  const counted = decisions !== undefined && decisions > 0 ? { decisions } : {};
  switch (event.type) {
    case 'InteractionRecorded':
      return { ...event, data: { ...event.data, text: '', redacted: true } };
    case 'SummaryAccepted': {
      const { gist: _gist, gistBy: _by, refs: _refs, filesRoot: _root, ...data } = event.data;
      return { ...event, data: { ...data, text: '', sections: [], redacted: true, ...counted } };
    }
    case 'SummaryAmended': {
      const { refs: _refs, filesRoot: _root, ...data } = event.data;
      return { ...event, data: { ...data, text: '', sections: [], gist: '', redacted: true, ...counted } };
    }
    default:
      return event;
  }
}
