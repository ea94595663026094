// Verbatim sections (VERBATIM_SECTIONS): the user's own words, quoted. A quote counts only
// where the user wrote it: in a prompt of the window (for a rollup, among the quotes of the
// summaries it rolls up). What a verbatim section says outside its quotes is the agent's own
// text, judged as any section's; the quotes themselves are not counted as copied.
import { bodyRange, headingKey, structure } from './summaryHeadings.js';
import { wordsOf } from './summaryQuality.js';

/** A part of a prompt shorter than this could be anyone's words: it must be a whole line or sentence of it. */
const MIN_QUOTE_WORDS = 3;
const CLIP = 80;

export const QUOTE_FORM = `> "<the user's exact words from their prompts: a whole line or sentence, or at least ${MIN_QUOTE_WORDS} words in a row; one quote per line>"`;

/** What quotes are checked against: texts the user wrote, and what they are, in messages. */
export type QuoteSources = { texts: readonly string[]; what: string };

export const NO_QUOTE_SOURCES: QuoteSources = { texts: [], what: "the user's prompts since the last summary" };

/** A quote line: `> words`, or a line opening with a double quote; either may follow a list marker. */
const LIST = String.raw`^\s*(?:(?:[-*+]|\d+[.)])\s+)?`;
const BLOCK = new RegExp(`${LIST}>\\s?(.*)$`);
const QUOTED = new RegExp(`${LIST}(?:[*_]{1,2})?["“](.+?)["”](?=$|[^\\p{L}\\p{N}])(.*)$`, 'u');
/** An elision inside a quote: each part must occur, in order, in one prompt. */
const ELISION = /\s*\[?(?:\.{3}|…)\]?\s*/;

/** A line's quote and the text after it; `block`: a `> words` line, which may continue on the next. */
type Quoted = { index: number; quote: string; rest: string; block: boolean };

function quoteOf(line: string, index: number): Quoted | undefined {
  const block = BLOCK.exec(line);
  const inner = block ? block[1]!.trim() : line;
  // `> "words" (when)` and `- "words" (when)`: the words in quotation marks; `> words`: all of them.
  const quoted = QUOTED.exec(inner);
  if (quoted) return { index, quote: quoted[1]!, rest: quoted[2]!, block: false };
  return block && inner !== '' ? { index, quote: inner, rest: '', block: true } : undefined;
}

/** A text's words as one line, for finding one text's words inside another's. */
const normal = (text: string): string => wordsOf(text.replace(/’/g, "'")).join(' ');

type Source = { words: string; units: ReadonlySet<string> };

function sourceOf(text: string): Source {
  const units = text.split(/\n+|(?<=[.!?;:])\s+/).map(normal);
  return { words: ` ${normal(text)} `, units: new Set([...units, normal(text)]) };
}

type Found = 'found' | 'short' | 'absent';

/** Whether the quote occurs in one source: whole, or else its parts around an elision (`...`), in order. */
function occurs(quote: string, sources: readonly Source[]): Found {
  const whole = placed([normal(quote)], sources);
  if (whole === 'found' || !ELISION.test(quote)) return whole;
  const parts = placed(quote.split(ELISION).map(normal), sources);
  return parts === 'absent' ? whole : parts;
}

/** Whether the parts occur in this order in one source, each long enough or a whole line or sentence of it. */
function placed(parts: readonly string[], sources: readonly Source[]): Found {
  const wanted = parts.filter(Boolean);
  if (wanted.length === 0) return 'absent';
  let short = false;
  for (const source of sources) {
    let at = 0;
    const found = wanted.every((part) => {
      const index = source.words.indexOf(` ${part} `, at);
      if (index < 0) return false;
      at = index + part.length + 1;
      const enough = part.split(' ').length >= MIN_QUOTE_WORDS || source.units.has(part);
      short ||= !enough;
      return enough;
    });
    if (found) return 'found';
  }
  return short ? 'short' : 'absent';
}

export type VerbatimCheck = {
  problems: string[];
  /** How many quotes occur where the user wrote them. */
  real: number;
  /** The section's lines with every quote taken out: the agent's own text, for the copy check. */
  own: string[];
};

/**
 * A verbatim section's quotes against what the user wrote. `code` marks lines in code
 * fences, which quote nothing. Consecutive `> words` lines are one quote when they occur
 * together (a prompt of several lines), else each line is a quote of its own.
 */
export function checkVerbatim(heading: string, lines: readonly string[], code: readonly boolean[], sources: QuoteSources): VerbatimCheck {
  const known = sources.texts.map(sourceOf);
  const quoted = lines.flatMap((line, i) => (code[i] === true ? [] : (quoteOf(line, i) ?? [])));
  const own = [...lines];
  for (const q of quoted) own[q.index] = q.rest;
  const groups: Quoted[][] = [];
  for (const q of quoted) {
    const last = groups.at(-1);
    const previous = last?.at(-1);
    if (q.block && previous?.block === true && previous.index === q.index - 1) last!.push(q);
    else groups.push([q]);
  }
  const problems: string[] = [];
  let real = 0;
  for (const group of groups) {
    const whole = group.map((q) => q.quote).join('\n');
    const quotes = group.length > 1 && occurs(whole, known) !== 'found' ? group.map((q) => q.quote) : [whole];
    for (const quote of quotes) {
      const found = occurs(quote, known);
      if (found === 'found') real += 1;
      else problems.push(quoteProblem(heading, quote, found, sources.what));
    }
  }
  return { problems, real, own };
}

function quoteProblem(heading: string, quote: string, found: Exclude<Found, 'found'>, what: string): string {
  const shown = clip(quote.replace(/\s+/g, ' ').trim());
  if (found === 'short') {
    return `${heading} quotes "${shown}", too few words to be told apart from anyone's: quote the whole line or sentence of the prompt, or at least ${MIN_QUOTE_WORDS} words in a row`;
  }
  return (
    `${heading} quotes "${shown}", which is not in ${what}: quote the user's exact words as they wrote them (a whole line or sentence, ` +
    `or at least ${MIN_QUOTE_WORDS} words in a row), or say it without quotation marks, in your own words`
  );
}

const clip = (text: string): string => (text.length > CLIP ? `${text.slice(0, CLIP - 3)}...` : text);

/** The quotes in a summary's verbatim sections: what a rollup of it may quote again. */
export function quotesIn(text: string, verbatim: readonly string[]): string[] {
  const s = structure(text.split(/\r?\n/));
  const keys = new Set(verbatim.map(headingKey));
  return s.headings.flatMap((h, at) => {
    if (!keys.has(h.key)) return [];
    const { from, to } = bodyRange(s, at);
    return s.lines.slice(from, to).flatMap((line, i) => (s.code[from + i] ? [] : (quoteOf(line, i)?.quote ?? [])));
  });
}
