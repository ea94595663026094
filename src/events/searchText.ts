// What search reads of a summary: its parts, each under the name a hit shows (`Gist`, a
// section's heading as written, `Files`), and the words of a text as the index and the
// snippets both see them. One tokenizer for both, so a highlighted word is the word that matched.
import type { FileReference, SummaryAccepted } from './events.js';
import { entryText } from './entryText.js';
import { deriveGist } from './gist.js';
import { FILES_HEADING, referenceSpec } from './summaryParts.js';
import { bodyRange, headingKey, structure } from './summaryHeadings.js';

/** One part of a summary as search indexes it. */
export type SearchPart = { section: string; text: string };

/** What the index is given of one summary: what `indexedText` decided to index. */
export type SearchSource = { text: string; gist: string; refs?: readonly Pick<FileReference, 'mode' | 'path' | 'start' | 'end' | 'why'>[] };

export const GIST_SECTION = 'Gist';
/** Text before a summary's first heading other than its `Gist:` line. */
export const OPENING_SECTION = 'Opening';

/** A word: letters, digits and underscores (an identifier stays one word); everything else separates. */
const WORD = /[\p{L}\p{N}_]+/gu;
const ATX_TEXT = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const GIST_LINE = /^\s*(?:[*_]{1,2})?gist(?:[*_]{1,2})?\s*:/i;

/** The words of `text`, in order, as written (the index lowercases them). */
export function searchWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Each word of `text` with where it starts and ends. */
export function wordSpans(text: string): { word: string; start: number; end: number }[] {
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0], start: m.index, end: m.index + m[0].length }));
}

/**
 * A summary's parts: its gist, the text before its first heading (the `Gist:` line left out),
 * each top-level section under its heading as written (nested headings stay in their
 * section's text), and the files it names (paths and reasons) as `Files`, whose section's
 * own lines are not indexed twice.
 */
export function searchParts(source: SearchSource): SearchPart[] {
  const raw = source.text.split(/\r?\n/);
  const s = structure(raw);
  const parts: SearchPart[] = [{ section: GIST_SECTION, text: source.gist }];
  const first = s.headings[0]?.line ?? s.lines.length;
  const opening = s.lines
    .slice(0, first)
    .filter((line) => !GIST_LINE.test(line))
    .join('\n')
    .trim();
  if (opening !== '') parts.push({ section: OPENING_SECTION, text: opening });
  const top = Math.min(...s.headings.map((h) => h.level));
  const refs = source.refs ?? [];
  s.headings.forEach((heading, at) => {
    if (heading.level !== top) return;
    if (refs.length > 0 && heading.key === headingKey(FILES_HEADING)) return;
    const { from, to } = bodyRange(s, at);
    const text = s.lines.slice(from, to).join('\n').trim();
    const title = ATX_TEXT.exec(raw[heading.line]!)?.[1]?.trim() ?? heading.key;
    parts.push({ section: title, text });
  });
  if (refs.length > 0) parts.push({ section: FILES_HEADING, text: refs.map((r) => `${r.mode} ${referenceSpec(r)} — ${r.why}`).join('\n') });
  return parts;
}

/**
 * Which event holds the text search indexes of an entry of the chain now (entryText.ts): its
 * own SummaryAccepted, its newest SummaryAmended, or none when it was redacted; for another
 * machine's entry, its newest SummaryImported (importedInForce reads the text in force of it).
 */
export function indexedSeq(entry: Parameters<typeof entryText>[0]): number | undefined {
  const now = entryText(entry);
  return now.state === 'redacted' ? undefined : now.seq;
}

/**
 * What search indexes of the event that holds an entry's text (a SummaryAccepted or a
 * SummaryAmended, indexedSeq): its text, gist and files; nothing when its text was removed.
 */
export function indexedSource(data: Pick<SummaryAccepted['data'], 'text' | 'gist' | 'refs' | 'redacted'>): SearchSource | undefined {
  if (data.redacted) return undefined;
  return { text: data.text, gist: data.gist ?? deriveGist(data.text), ...(data.refs ? { refs: data.refs } : {}) };
}

/**
 * The part of a summary a hit shows: the one whose words hold the most of the terms that
 * matched (`matched`: lowercase), any section before the gist, which every hit shows anyway;
 * the first such part among equals. The index keeps one document per summary, so the section
 * is worked out here, from the text the snippet reads.
 */
export function matchedPart(parts: readonly SearchPart[], matched: ReadonlySet<string>): SearchPart {
  let best = parts[0]!;
  let most = 0;
  for (const part of parts) {
    const found = new Set(
      searchWords(part.section === GIST_SECTION ? part.text : `${part.section} ${part.text}`)
        .map((w) => w.toLowerCase())
        .filter((w) => matched.has(w)),
    ).size;
    const score = part.section === GIST_SECTION ? found - 0.5 : found;
    if (score > most) [best, most] = [part, score];
  }
  return best;
}
