// Whether a section reads as written prose: not filler text, not the same words over and
// over, not keyboard mash, not data or punctuation (summaryNoise.ts), not a code dump. Each
// test is language-neutral (Latin-script words for the mash test) and skips sections too
// short to judge; the thresholds sit well below what the genuine corpus in
// test/fixtures/summaries scores.
import { deflateRawSync } from 'node:zlib';
import { sectionNoise } from './summaryNoise.js';

/** Sections with fewer words than this are left to the depth floor. */
const MIN_WORDS = 25;
/** Shorter texts compress poorly whatever they say: their ratio means nothing. */
const MIN_BYTES = 150;
/** Below this share of distinct words a section is repetition (genuine sections: 0.55 and up). */
const MIN_DISTINCT = 0.4;
/** Deflate output over input below this is repetition (genuine sections: 0.5 and up). */
const MIN_COMPRESSED = 0.33;
/** Filler words (lorem ipsum, "blah", "asdf") over this share make a section filler. */
const MAX_FILLER = 0.15;
/** Words that cannot be pronounced over this share make a section keyboard mash. */
const MAX_MASH = 0.3;
/** Words in code (fenced, or lines that read as code) over this share make a section a code dump. */
const MAX_CODE = 0.65;
/** 8-word runs seen before over this share are a repeated passage (genuine text: none). */
const MAX_REPEATED = 0.1;

// The words of lorem ipsum and its usual continuations, and the noises people type to fill
// a box. English words that also occur in them (do, id, non, error, sit) are left out or
// are too few to reach the share on their own.
const FILLER = new Set(
  (
    'lorem ipsum dolor amet consectetur consectetuer adipiscing adipisicing elit sed eiusmod tempor incididunt ut labore et ' +
    'dolore magna aliqua enim minim veniam quis nostrud exercitation ullamco laboris nisi aliquip commodo consequat duis aute ' +
    'irure reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat proident sunt ' +
    'culpa qui officia deserunt mollit anim est laborum perspiciatis unde omnis iste natus voluptatem accusantium doloremque ' +
    'laudantium totam aperiam eaque ipsa quae ab illo inventore veritatis architecto beatae vitae dicta explicabo nemo ' +
    'ipsam quia voluptas aspernatur aut odit fugit consequuntur magni dolores eos ratione sequi nesciunt neque porro quisquam ' +
    'dolorem vero accusamus iusto odio dignissimos ducimus blanditiis praesentium voluptatum deleniti atque corrupti quos quas ' +
    'molestias excepturi occaecati cupiditate similique lipsum blah bla yada asdf qwerty foo baz'
  ).split(' '),
);

/**
 * The words of a text, lower-cased. Invisible format characters (zero-width spaces and
 * joiners, soft hyphens, direction marks) are read as absent, not as breaks: "lo\u200brem"
 * is the word "lorem", so a copy, a resubmission or filler with them sprinkled inside its
 * words is judged as the text a reader sees.
 */
export function wordsOf(text: string): string[] {
  return (
    text
      .replace(/\p{Cf}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{N}_'’]*/gu) ?? []
  );
}

/** Deflate's output size over the input's: prose stays above half, repetition falls far below. */
export function compressedShare(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length === 0 ? 1 : deflateRawSync(bytes, { level: 9 }).length / bytes.length;
}

/**
 * What is wrong with one short line as words (a gist), or undefined: filler, keyboard mash
 * or one word over and over, judged at any length, since a line has few words to go by.
 */
export function lineQuality(what: string, line: string): string | undefined {
  const words = wordsOf(line);
  if (words.length === 0) return undefined;
  const filler = words.filter((w) => FILLER.has(w)).length / words.length;
  if (filler > MAX_FILLER * 2) return `${what} is filler text: say what the work was for and how it ended`;
  const mash = words.filter((w) => unpronounceable(w, LINE_SHORTEST)).length / words.length;
  if (mash > MAX_MASH) return `${what} does not read as words: write it as a sentence`;
  if (words.length >= 6 && new Set(words).size / words.length < MIN_DISTINCT) return `${what} repeats the same words: say each thing once`;
  return undefined;
}

/**
 * The shortest word a section's mash test judges. Three letters: keyboard mash typed as short
 * "words" (sdf jkl xcv) is most of a section, while the vowel-less acronyms of real prose (npm,
 * sql, css, src) stay a few percent of its words (genuine sections: 5% at most). A line (a
 * gist) judges from four: three acronyms in a six-word line would be half of it.
 */
const SECTION_SHORTEST = 3;
const LINE_SHORTEST = 4;

/** A Latin-script word of `shortest` letters or more no one can say: no vowel at all, or five consonants in a row. */
function unpronounceable(word: string, shortest: number): boolean {
  return word.length >= shortest && /^[a-z]+$/.test(word) && (!/[aeiouy]/.test(word) || /[^aeiouy]{5,}/.test(word));
}

/**
 * Lines shaped as code or configuration whatever their words: indented by a tab, opening or
 * closing a block (`... {`, `}`, `],`), ending a statement (`;`), with an operator prose does
 * not use (`:=`, `==`, `!=`, `&&`, `||`), or a key with at most one value (`kind: CronJob`,
 * `"view": "x",`, `- name: render`). Go, JSON and YAML pasted without a fence have long
 * identifiers and few symbols; a stray prose line of these shapes weighs little against the
 * section's share (MAX_CODE). Only a line of at most SHAPED_WORDS words is judged by its
 * shape: a line of code is short, and a paragraph written on one line that happens to end
 * with a bracket or mention `==` is prose.
 */
const CODE_SHAPES = [/^\t/, /[{[(;]\s*$/, /^\s*[}\])][\s,;)]*$/, /[}\]],?\s*$/, /:=|[=!]=|&&|\|\|/, /^\s*(?:-\s+)?"?[\w.-]+"?\s*:(?:\s+\S+)?\s*$/];

const SHAPED_WORDS = 16;

/** A line that reads as code: statement punctuation rather than words, or a short line of one of CODE_SHAPES. */
function codeLike(line: string): boolean {
  const symbols = line.match(/[{}()[\];=<>|&$]/g)?.length ?? 0;
  const letters = line.match(/\p{L}/gu)?.length ?? 0;
  if (symbols >= 3 && symbols * 6 >= letters) return true;
  return CODE_SHAPES.some((shape) => shape.test(line)) && wordsOf(line).length <= SHAPED_WORDS;
}

const percent = (share: number): string => `${Math.round(share * 100)}%`;

/**
 * What is wrong with a section's text as prose, or undefined. `code` marks the lines inside
 * fenced code blocks. At most one problem: the first that applies says the most.
 */
export function sectionQuality(heading: string, lines: string[], code: boolean[]): string | undefined {
  const inCode = lines.map((l, i) => code[i] === true || codeLike(l));
  const all = wordsOf(lines.join('\n')).length;
  const codeWords = wordsOf(lines.filter((_, i) => inCode[i]).join('\n')).length;
  if (all >= MIN_WORDS && codeWords / all > MAX_CODE) {
    return `${heading} is mostly code (${percent(codeWords / all)} of its words): say in sentences what changed and why, and name the files and functions instead of pasting them`;
  }
  const prose = lines.filter((_, i) => !inCode[i]).join('\n');
  const words = wordsOf(prose);
  const judged = words.length >= MIN_WORDS;
  const filler = words.filter((w) => FILLER.has(w)).length / words.length;
  if (judged && filler > MAX_FILLER) {
    return `${heading} is filler text (${percent(filler)} of its words are lorem ipsum, "blah" and the like): write what actually happened`;
  }
  const mash = words.filter((w) => unpronounceable(w, SECTION_SHORTEST)).length / words.length;
  if (judged && mash > MAX_MASH) {
    return `${heading} does not read as words (${percent(mash)} of them cannot be pronounced): write the section in sentences`;
  }
  // Before the repetition tests: a row of dashes or a hex dump repeats, but is not words at all.
  const noise = sectionNoise(heading, lines.filter((_, i) => code[i] !== true).join('\n'));
  if (noise) return noise;
  const distinct = new Set(words).size;
  if (judged && distinct / words.length < MIN_DISTINCT) {
    return `${heading} repeats the same words (${distinct} distinct among ${words.length}): say each thing once, in your own words`;
  }
  // Judged by size, not words: a run of one character is a single "word".
  const compressed = compressedShare(prose);
  if (Buffer.byteLength(prose) >= MIN_BYTES && compressed < MIN_COMPRESSED) {
    return `${heading} repeats itself: it compresses to ${percent(compressed)} of its size where prose stays above ${percent(MIN_COMPRESSED)}; say each thing once`;
  }
  const repeated = repeatedShare(prose);
  if (judged && repeated > MAX_REPEATED) {
    return `${heading} repeats itself: ${percent(repeated)} of it says again what it said above; say each thing once`;
  }
  return undefined;
}

/** The share of the summary's 8-word runs that already appeared earlier in it. */
export function repeatedShare(text: string): number {
  const words = wordsOf(text);
  const seen = new Set<string>();
  let repeated = 0;
  let runs = 0;
  for (let i = 0; i + 8 <= words.length; i += 1) {
    const run = words.slice(i, i + 8).join(' ');
    runs += 1;
    if (seen.has(run)) repeated += 1;
    else seen.add(run);
  }
  return runs === 0 ? 0 : repeated / runs;
}

/** A passage pasted into several sections: the share of runs already written in an earlier section. */
export function repetitionAcross(bodies: readonly string[]): string | undefined {
  const earlier = new Set<string>();
  let repeated = 0;
  let runs = 0;
  for (const body of bodies) {
    const own = new Set<string>();
    const words = wordsOf(body);
    for (let i = 0; i + 8 <= words.length; i += 1) {
      const run = words.slice(i, i + 8).join(' ');
      runs += 1;
      if (earlier.has(run)) repeated += 1;
      own.add(run);
    }
    for (const run of own) earlier.add(run);
  }
  const share = runs === 0 ? 0 : repeated / runs;
  if (share <= MAX_REPEATED) return undefined;
  return `the same passage appears in more than one section (${percent(share)} of the summary repeats an earlier section): each section must say something of its own`;
}
