// The piece of a section a search hit shows: a few hundred characters around the words that
// matched, on one line, cut at word boundaries, and which of its words matched as they are
// written there (the CLI highlights them).
import { wordSpans } from './searchText.js';

export const SNIPPET_CHARS = 300;
/** How much of the text before the first match the window keeps, so the match has its context. */
const LEAD_CHARS = 60;
const ELLIPSIS = '…';

export type Snippet = { snippet: string; terms: string[] };

/**
 * The window of `text` that holds the most of the matched words (`matched`: lowercase), its
 * whitespace folded to single spaces; the text's start when none is in it.
 */
export function snippetOf(text: string, matched: ReadonlySet<string>, chars = SNIPPET_CHARS): Snippet {
  const flat = text.replace(/\s+/g, ' ').trim();
  const spans = wordSpans(flat);
  const hits = spans.filter((s) => matched.has(s.word.toLowerCase()));
  let from = 0;
  let best = 0;
  for (const hit of hits) {
    const inWindow = new Set(hits.filter((h) => h.start >= hit.start && h.end <= hit.start + chars - LEAD_CHARS).map((h) => h.word.toLowerCase())).size;
    if (inWindow > best) [best, from] = [inWindow, hit.start];
  }
  const start = from - LEAD_CHARS <= 0 ? 0 : (spans.find((s) => s.start >= from - LEAD_CHARS)?.start ?? from);
  let end = Math.min(flat.length, start + chars);
  if (end < flat.length) end = spans.findLast((s) => s.end <= end && s.start >= start)?.end ?? end;
  const piece = `${start > 0 ? ELLIPSIS : ''}${flat.slice(start, end)}${end < flat.length ? ELLIPSIS : ''}`;
  const terms = [...new Set(hits.filter((h) => h.start >= start && h.end <= end).map((h) => h.word))];
  return { snippet: piece, terms };
}
