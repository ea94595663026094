// The job's decision log: the `decision — reason` lines of each summary's decisions section
// (a profile's, profiles.ts), numbered in the order the log learned them: this machine's in
// chain order, another machine's (`recap sync`) when it was first imported here. It is derived
// from accepted and imported summaries only, so it is append-only by construction: a new
// summary adds entries after the last, and an entry's number never changes (an import that
// supersedes an earlier one is read as an amendment is). Pure: the daemon hands in each text.
import type { ChainEntry } from './jobState.js';
import { entryText, originLabel } from './entryText.js';
import { DECISIONS_SECTIONS } from './profiles.js';
import { bodyRange, structure } from './summaryHeadings.js';

/** A `decision — reason` line, read. */
export type DecisionLine = { decision: string; reason: string };

/** A line of a decisions section, read: the section's heading as written. */
export type FoundDecision = DecisionLine & { section: string };

/** An entry of the log: its number (1 for the job's first) and the summary it is in. */
export type LoggedDecision = FoundDecision & {
  n: number;
  seq: number;
  time: number;
  topic?: string;
  /** The event whose text gave it: the summary `seq` or one of its amendments. */
  source: number;
  /** An amendment states it again in the same words: the summary's entry, kept at its number (it took none). */
  carried?: true;
  /** Set when `source` is an amendment: the summary's text in force is it. */
  supersededBy?: number;
  /** Another machine's summary: its label (originLabel: its git author, else its host). */
  from?: string;
};

/** The most characters of a decision and of a reason kept: past them the text is cut, and the summary has it whole. */
export const DECISION_MAX_CHARS = 300;
export const REASON_MAX_CHARS = 600;
/** How many entries are shown whole unless the request says; the older ones are index lines. */
export const WHOLE_ENTRIES = 100;
/** The most characters of a decision an index line shows. */
const INDEX_DECISION_CHARS = 128;

/** A list marker (`- `, `* `, `+ `, `1. `, `1) `) before the decision. */
const BULLET = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;
/**
 * What parts a decision from its reason: an em dash (spaces around it or not), or an en dash
 * or a double hyphen with spaces on both sides. A single hyphen is not one: prose uses it in
 * ranges and asides ("pages 3 - 5"), and a decision line must say plainly where its reason starts.
 */
const SEPARATOR = /\s*—\s*|\s+–\s+|\s+--\s+/;
const WORDLIKE = /[\p{L}\p{N}]/u;
const HEADING_TEXT = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** Whether a line is an item of a list. */
export const isListItem = (line: string): boolean => BULLET.test(line);

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** A line read as `decision — reason` (a list marker before it allowed), or undefined when it is not one. */
export function decisionLine(line: string): DecisionLine | undefined {
  const text = line.replace(BULLET, '').trim();
  const separator = SEPARATOR.exec(text);
  if (separator === null) return undefined;
  const decision = text.slice(0, separator.index).trim();
  const reason = text.slice(separator.index + separator[0].length).trim();
  if (!WORDLIKE.test(decision) || !WORDLIKE.test(reason)) return undefined;
  return { decision: cut(decision, DECISION_MAX_CHARS), reason: cut(reason, REASON_MAX_CHARS) };
}

/**
 * The decision lines of a summary's decisions sections, in order. Lines of any other section,
 * in code blocks or comments, headings, and lines not in the form are not taken.
 */
export function decisionsIn(text: string): FoundDecision[] {
  const s = structure(text.split(/\r?\n/));
  return s.headings.flatMap((heading, at) => {
    if (!DECISIONS_SECTIONS.has(heading.key)) return [];
    const section = HEADING_TEXT.exec(s.lines[heading.line]!)?.[1]?.trim() ?? heading.key;
    const { from, to } = bodyRange(s, at);
    const headingLines = new Set(s.headings.map((h) => h.line));
    const found: FoundDecision[] = [];
    for (let i = from; i < to; i += 1) {
      if (s.code[i] || headingLines.has(i)) continue;
      const line = decisionLine(s.lines[i]!);
      if (line) found.push({ ...line, section });
    }
    return found;
  });
}

/**
 * The events whose texts give the log an entry of the chain's decisions, in log order: the
 * summary's own and each amendment's (`recap amend`), each read once, when it is appended, so
 * an amendment's decisions are numbered on from the last and no entry's number ever changes.
 * None for a rollup: it restates decisions already logged from the summaries it rolls up
 * (in other words, so not found equal).
 */
export function decisionSources(entry: Pick<ChainEntry, 'seq' | 'level' | 'amendments' | 'imports'>): number[] {
  if (entry.level !== 0) return [];
  // Another machine's entry: each import of it, the first as its summary, the later as amendments.
  return entry.imports !== undefined ? [...entry.imports, entry.seq] : [entry.seq, ...(entry.amendments ?? [])];
}

/** The number the log keeps a summary's entries under: its first import's for another machine's, whose number moves with each import. */
export const logKey = (entry: Pick<ChainEntry, 'seq' | 'imports'>): number => entry.imports?.[0] ?? entry.seq;

/**
 * The entries a summary shows in the log: those of its text in force (entryText.ts), marked
 * `supersededBy` when that is an amendment's; none once it is redacted (their numbers stay
 * taken: the next entry's number does not change).
 */
export function decisionsInForce(entry: Parameters<typeof entryText>[0], logged: readonly LoggedDecision[]): LoggedDecision[] {
  const now = entryText(entry);
  if (now.state === 'redacted') return [];
  const mine = logged.filter((d) => d.source === now.seq);
  return now.state === 'amended' ? mine.map((d) => ({ ...d, supersededBy: now.seq })) : mine;
}

/** A decision's words compared as the log compares them: case, spacing and end punctuation aside. */
export const decisionKey = (decision: string): string =>
  decision
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/, '')
    .trim();

/**
 * The entries a summary adds to a log that holds `count` entries and the decisions `seen`
 * (decisionKey): each decision not logged before, numbered on from the last. A decision a
 * summary states again, in the same words, keeps the entry of the summary that first stated it.
 */
export function newDecisions(
  count: number,
  seen: ReadonlySet<string>,
  summary: Pick<ChainEntry, 'seq' | 'time' | 'topic' | 'origin'>,
  text: string,
  source = summary.seq,
): LoggedDecision[] {
  const added: LoggedDecision[] = [];
  const keys = new Set<string>();
  for (const found of decisionsIn(text)) {
    const key = decisionKey(found.decision);
    if (seen.has(key) || keys.has(key)) continue;
    keys.add(key);
    const where = {
      seq: summary.seq,
      time: summary.time,
      ...(summary.topic !== undefined ? { topic: summary.topic } : {}),
      ...(summary.origin !== undefined ? { from: originLabel(summary.origin) } : {}),
      source,
    };
    added.push({ n: count + added.length + 1, ...where, ...found });
  }
  return added;
}

/**
 * The entries of a summary that its amendment (`source`) states again in the same words (case,
 * spacing and end punctuation aside): kept at their numbers, with the amendment's reason, now
 * from the amendment. An amendment that fixes a typo elsewhere keeps every decision it repeats.
 */
export function carriedDecisions(logged: readonly LoggedDecision[], text: string, source: number): LoggedDecision[] {
  const byKey = new Map(logged.map((d) => [decisionKey(d.decision), d]));
  const carried = new Map<string, LoggedDecision>();
  for (const found of decisionsIn(text)) {
    const key = decisionKey(found.decision);
    const earlier = byKey.get(key);
    if (earlier !== undefined && !carried.has(key)) carried.set(key, { ...earlier, ...found, decision: earlier.decision, source, carried: true });
  }
  return [...carried.values()];
}

const day = (time: number) => new Date(time).toISOString().slice(0, 10);

/** An older entry as one line of the log's index. */
export const indexLine = (entry: LoggedDecision): string =>
  `#${entry.n} [${day(entry.time)}] ${cut(entry.decision, INDEX_DECISION_CHARS)} (summary #${entry.seq}${entry.from !== undefined ? `, ${entry.from}` : ''})`;

/** The log as it is shown, newest first: the newest `whole` entries whole, every older one as an index line. */
export function decisionLogView(entries: readonly LoggedDecision[], whole = WHOLE_ENTRIES): { total: number; decisions: Omit<LoggedDecision, 'source'>[]; index?: string[] } {
  const newestFirst = [...entries].reverse();
  const older = newestFirst.slice(whole);
  return {
    total: entries.length,
    decisions: newestFirst.slice(0, whole).map(({ source: _source, carried: _carried, ...shown }) => shown),
    ...(older.length > 0 ? { index: older.map(indexLine) } : {}),
  };
}
