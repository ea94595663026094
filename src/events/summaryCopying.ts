// Whether a summary is its own text: not the interactions pasted back, not an earlier
// summary submitted again with a few words changed. Both compare runs of words (shingles),
// which survive reflowed lines, changed case and punctuation but not a real rewording.
import { wordsOf } from './summaryQuality.js';

/** Runs this long shared with the interactions are copied, not summarized. */
const COPY_RUN = 8;
/** A section with more than this share of its runs found in the interactions is a copy. */
const MAX_COPIED_SECTION = 0.5;
/** The whole summary, over this share, is a copy (sections under the limit can add up). */
const MAX_COPIED_WHOLE = 0.35;
/** Runs this long shared with an earlier summary make it the same text. */
const SAME_RUN = 5;
/** Over this share of the summary's runs found in one earlier summary is a resubmission. */
const MAX_SAME = 0.5;
/** Texts shorter than this (possible only with a custom band) are too short to compare. */
const MIN_WORDS = 25;

export type Shingles = ReadonlySet<string>;

export function shingles(text: string, size: number): Set<string> {
  const words = wordsOf(text);
  const runs = new Set<string>();
  for (let i = 0; i + size <= words.length; i += 1) runs.add(words.slice(i, i + size).join(' '));
  return runs;
}

/** The share of `text`'s runs found in `source`; 0 for a text too short to judge (under `least` words). */
function sharedShare(text: string, source: Shingles, size: number, least = MIN_WORDS): number {
  if (wordsOf(text).length < least) return 0;
  const runs = shingles(text, size);
  if (runs.size === 0) return 0;
  let shared = 0;
  for (const run of runs) if (source.has(run)) shared += 1;
  return shared / runs.size;
}

const percent = (share: number): string => `${Math.round(share * 100)}%`;

/**
 * The summary's own runs that also occur in the material. The material can be large (a
 * window of pasted files), so it is scanned once against the summary's few runs rather than
 * kept as a set of its own.
 */
export function materialShingles(summary: string, material: readonly string[]): Shingles {
  const wanted = shingles(summary, COPY_RUN);
  const found = new Set<string>();
  for (const text of material) {
    const words = wordsOf(text);
    for (let i = 0; i + COPY_RUN <= words.length; i += 1) {
      const run = words.slice(i, i + COPY_RUN).join(' ');
      if (wanted.has(run)) found.add(run);
    }
  }
  return found;
}

/**
 * Sections (and then the whole) pasted from the material they should summarize. A `quoting`
 * section (a verbatim one) comes with its quotes taken out: what is left is judged as the
 * agent's own text.
 */
export function copiedFrom(sections: readonly { heading: string; body: string; quoting?: boolean }[], whole: string, material: Shingles, what: string): string[] {
  const problems = sections.flatMap(({ heading, body, quoting }) => {
    const share = sharedShare(body, material, COPY_RUN);
    if (share <= MAX_COPIED_SECTION) return [];
    const amount = `${percent(share)} of ${quoting ? 'its unquoted text' : 'it'} word for word`;
    return quoting
      ? [`${heading} copies the ${what} without quoting them (${amount}): quote the user's exact words, one quote per line, as > "...", and say the rest in your own words`]
      : [`${heading} is copied from the ${what} (${amount}): say what they amount to, in your own words`];
  });
  if (problems.length > 0) return problems;
  const share = sharedShare(whole, material, COPY_RUN);
  return share > MAX_COPIED_WHOLE ? [`the summary is copied from the ${what} (${percent(share)} of it word for word): say what they amount to, in your own words`] : [];
}

/** A single line (a gist) mostly pasted from the material: judged from ten words on. */
export function lineCopied(what: string, line: string, material: Shingles): string | undefined {
  const share = sharedShare(line, material, COPY_RUN, 10);
  return share > MAX_COPIED_SECTION
    ? `${what} is copied from the interactions (${percent(share)} of it word for word): say in your own words what the work was for and how it ended`
    : undefined;
}

/** An earlier summary this one repeats, newest first, if any. */
export function sameAsEarlier(text: string, earlier: readonly { seq: number; text: string }[]): string | undefined {
  for (const entry of [...earlier].reverse()) {
    const share = sharedShare(text, shingles(entry.text, SAME_RUN), SAME_RUN);
    if (share > MAX_SAME) {
      return `this summary repeats summary #${entry.seq} (${percent(share)} of its text is the same): summarize what happened since then, not what was summarized before`;
    }
  }
  return undefined;
}
