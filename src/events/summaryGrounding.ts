// Whether a summary is about its window: it names some of the concrete things the window's
// texts contained (paths, file names, identifiers, acronyms, names, numbers). A summary that
// could have been written without reading the window names none of them. A window with
// hardly anything concrete grounds every summary.

/** Fewer concrete things than this in the window: nothing to ground against. */
const MIN_TERMS = 3;
/** One match needed per this many concrete things, up to MAX_NEEDED. */
const TERMS_PER_MATCH = 10;
const MAX_NEEDED = 3;
const EXAMPLES = 5;

const PATTERNS: RegExp[] = [
  // paths and file names: src/a/b.ts, ~/.cache/x, http_server.go, README.md
  /(?:~|\.{1,2})?(?:\/?[\w.@-]+\/)+[\w.@-]+|\b[\w-]{2,}\.[a-z][a-z0-9]{0,4}\b/g,
  // camelCase, PascalCase with two humps, snake_case, SCREAMING_CASE, acronyms
  /\b[a-z]+[A-Z][\w]*|\b[A-Z][a-z0-9]+[A-Z][\w]*|\b\w+_\w+\b|\b[A-Z][A-Z0-9]+\b/g,
  // numbers of two digits and more, decimals and versions included
  /\b\d[\d.,:]*\d\b/g,
  // a capitalized word inside a sentence: a name (Dana, Postgres, Brussels)
  /(?<=[\p{Ll}\p{N},;:)][ \t]+)\p{Lu}\p{Ll}{2,}(?![\p{L}\p{N}_])/gu,
];

/** Abbreviations that look like file names, and shouted words (SQL keywords) that are plain English. */
const NOT_TERMS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'v.s',
  'not',
  'and',
  'or',
  'on',
  'do',
  'set',
  'all',
  'add',
  'for',
  'the',
  'use',
  'new',
  'get',
  'put',
  'end',
  'if',
  'is',
  'in',
  'to',
  'by',
  'as',
  'at',
  'it',
  'no',
  'ok',
]);

function clean(term: string): string {
  return term.replace(/[.,:;]+$/, '').toLowerCase();
}

/** Markdown headings name the template's sections, not the work. */
const withoutHeadings = (text: string): string => text.replace(/^ {0,3}#{1,6}[ \t].*$/gm, '');

/**
 * Runs of non-space this long (a pasted blob, a minified line) name nothing a summary would
 * repeat, and the patterns above take time in the square of a run's length: they go first.
 */
const withoutBlobs = (text: string): string => text.replace(/\S{200,}/g, ' ');

/** The concrete things a text mentions, lower-cased, in order of appearance. */
export function concreteTerms(markdown: string): string[] {
  const text = withoutBlobs(withoutHeadings(markdown));
  const found: { at: number; term: string }[] = [];
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const term = clean(match[0]);
      if (term.length >= 2 && !NOT_TERMS.has(term)) found.push({ at: match.index, term });
    }
  }
  return [...new Set(found.sort((a, b) => a.at - b.at).map((f) => f.term))];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A term counts when the text (lower-cased) has it whole or, for a path, its last part. */
function mentions(lower: string, term: string): boolean {
  const variants = [term, term.split('/').filter(Boolean).at(-1) ?? term];
  // The substring test first: a window can name thousands of things, few of them in the summary.
  return variants.some((v) => lower.includes(v) && new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(v)}(?![\\p{L}\\p{N}_])`, 'u').test(lower));
}

/** The grounding problem of a summary against the texts it covers, if any. */
export function ungrounded(summary: string, material: readonly string[], what: string): string | undefined {
  const terms = concreteTerms(material.join('\n'));
  if (terms.length < MIN_TERMS) return undefined;
  const needed = Math.min(MAX_NEEDED, Math.ceil(terms.length / TERMS_PER_MATCH));
  const prose = withoutHeadings(summary).toLowerCase();
  const named = terms.filter((t) => mentions(prose, t));
  if (named.length >= needed) return undefined;
  const examples = terms
    .filter((t) => !named.includes(t))
    .slice(0, EXAMPLES)
    .join(', ');
  return (
    `the summary names ${named.length} of the ${terms.length} concrete things in the ${what} (at least ${needed} needed): ` +
    `say which files, identifiers, names and numbers the work was about, e.g. ${examples}`
  );
}
