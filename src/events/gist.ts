// A summary's gist: one line of at most GIST_MAX_TOKENS tokens, its objective and outcome
// and the key files, which the memory's index shows for every entry not shown whole. The
// agent writes it on the `Gist:` line the template asks for, checked like a section (there,
// not a placeholder, not filler, not copied); with GIST=recap, and for summaries older than
// gists, recap derives one from the text.
import type { GistAuthor, SummaryAccepted } from './events.js';
import { detached } from './detached.js';
import { lineCopied, type Shingles } from './summaryCopying.js';
import { structure } from './summaryHeadings.js';
import { lineQuality, wordsOf } from './summaryQuality.js';
import type { TokenCounter } from './tokens.js';

export const GIST_MAX_TOKENS = 128;
/** Fewer words than this say no objective and outcome. */
const GIST_MIN_WORDS = 5;
/** The most characters of a derived gist: about GIST_MAX_TOKENS tokens of prose at most. */
const DERIVED_CHARS = 280;

export const GIST_FORM = 'Gist: <one line: the objective and its outcome; the key files>';

/** What is wrong with the agent's gist, or nothing; `copied`: the summary's runs found in the material. */
export function gistProblems(gist: string | undefined, count: TokenCounter, copied: Shingles): string[] {
  if (gist === undefined) return [`missing the gist: begin the summary with one line, before the first section: ${GIST_FORM}`];
  if (/^<.*>$/.test(gist) || gist === '') return [`the Gist line is not filled in: replace it with one line saying the objective and its outcome, and the key files`];
  const tokens = count(gist);
  if (tokens > GIST_MAX_TOKENS) return [`the gist has ${tokens} tokens; at most ${GIST_MAX_TOKENS}: one line, the objective and its outcome and the key files`];
  if (wordsOf(gist).length < GIST_MIN_WORDS) return [`the gist is too short (${wordsOf(gist).length} words): say the objective and its outcome, and the key files`];
  const problem = lineQuality('the gist', gist) ?? lineCopied('the gist', gist, copied);
  return problem === undefined ? [] : [problem];
}

/** Who wrote an accepted summary's gist: recap, for one written before gists (it derives one), else as recorded. */
export function gistAuthor(entry: Pick<SummaryAccepted['data'], 'gist' | 'gistBy'>): GistAuthor {
  return entry.gist === undefined ? 'recap' : (entry.gistBy ?? 'agent');
}

/** A gist recap makes from the text: the first sentence of the first section that has prose. */
export function deriveGist(text: string): string {
  const s = structure(text.split(/\r?\n/));
  const prose = s.lines
    .filter((line, i) => !s.code[i] && !s.headings.some((h) => h.line === i) && !/^\s*(?:[*_]{1,2})?gist\b/i.test(line))
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\s+/g, ' ');
  const sentence = /^.*?[.!?](?=\s|$)/.exec(prose)?.[0] ?? prose;
  return detached(sentence.length > DERIVED_CHARS ? `${sentence.slice(0, DERIVED_CHARS - 3).trimEnd()}...` : sentence);
}
