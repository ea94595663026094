// Whether a section is made of words at all: not encoded data, hex dumps or made-up letter
// strings, not rows of punctuation and symbols. Each whitespace-separated token of its prose
// is sorted by shape. Identifiers, paths, URLs, flags and versions count as words, so a hash
// or a command in a sentence costs little; fenced code is left to the code check. The
// thresholds sit far from what the genuine corpus in test/fixtures/summaries scores.

/** Sections with fewer tokens than this (and fewer characters than MIN_CHARS) are left to the depth floor. */
const MIN_TOKENS = 12;
/** A blob of encoded data is one long token: this many characters are enough to judge. */
const MIN_CHARS = 150;
/** Tokens with no letter or digit over this share are filler (genuine sections: 2% at most). */
const MAX_PUNCTUATION = 0.4;
/** Random-looking tokens over this share are data pasted in (genuine sections: 2% at most). */
const MAX_GIBBERISH = 0.3;
/**
 * Words under this share, whatever the rest is, and the section says nothing (genuine
 * sections: 89% and up; a table of timings with its units stays near half, hex dumps and
 * base64 stay under a quarter).
 */
const MIN_WORDS = 0.35;

export type TokenKind = 'word' | 'number' | 'gibberish' | 'punctuation';

const VOWELS = 'aeiouyàâäáãåéèêëíìîïóòôöõúùûüÿæœø';
const NO_VOWEL = new RegExp(`^[^${VOWELS}]+$`, 'u');
const CONSONANT_RUN = new RegExp(`[^${VOWELS}]{5}`, 'u');

// Pairs of letters that no word of the usual Latin-script languages holds (tool names such
// as wxWidgets, VMware, xz and sqlite are why wx, vm, xz and ql are not here).
const IMPOSSIBLE = new Set('bx cx fq gq gx hx jq jx kq kx pq qb qc qd qf qg qh qj qk qn qp qv qx qy qz vb vf vh vj vk vq vw vx wq wv xj xk zj zq zx'.split(' '));

/** A letter-only word of five letters or more no one could say: typed at random. */
function madeUp(letters: string): boolean {
  if (letters.length < 5) return false;
  if (NO_VOWEL.test(letters) || CONSONANT_RUN.test(letters)) return true;
  for (let i = 0; i + 2 <= letters.length; i += 1) if (IMPOSSIBLE.has(letters.slice(i, i + 2))) return true;
  return false;
}

/**
 * Letters and digits mixed with no structure: hex ("3f9c2e1a", "7f45"), base64
 * ("aGVsbG8gd29ybGQ"), random case ("xK9fQ2mZ"). An identifier's humps are words (getUserById,
 * XMLHttpRequest), so they average two and a half characters and more; base64 always holds
 * lower case, a part number (STM32L476) none.
 */
function random(core: string): boolean {
  if (/^[0-9a-f]{4,}$/i.test(core) && /\d/.test(core) && /[a-f]/i.test(core)) return true;
  const alnum = core.replace(/[^A-Za-z0-9]/g, '');
  const humps = alnum.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [];
  return alnum.length >= 8 && /[a-z]/.test(alnum) && humps.length >= 4 && alnum.length / humps.length < 2.5;
}

export function tokenKind(token: string): TokenKind {
  if (!/[\p{L}\p{N}]/u.test(token)) return 'punctuation';
  if (/^[a-z][a-z0-9+.-]*:\/\/\S/i.test(token)) return 'word';
  // What surrounds the token (quotes, brackets, backticks, emphasis, a final stop) says nothing of its shape.
  const core = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  if (random(core)) return 'gibberish';
  // A bare number, a hex literal, or a short tag such as "v2", "e2e" or a byte "7f": not words, not noise.
  if (!/\p{L}/u.test(core) || /^0x[0-9a-f]+$/i.test(core) || (/\d/.test(core) && core.length <= 3)) return 'number';
  if (/^\p{Ll}+$/u.test(core) && madeUp(core)) return 'gibberish';
  return 'word';
}

type NoiseTally = Record<TokenKind, number> & { tokens: number };

/** Markdown's own marks: a heading's hashes, a quote's ">", a list item's bullet or number. */
const LINE_MARKUP = /^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+)?/;

/**
 * A table row with no cell written in (no letter, digit or a separator row's dash): its "|"
 * separate nothing, so they count as the punctuation they are, where a real row's are markup.
 * Rows of empty cells otherwise pad a section's tokens to its floor unseen.
 */
const EMPTY_ROW = /^\s*\|[\s|]*$/;

/** How the prose's tokens sort, markup left out (a table's "|" too, but for an EMPTY_ROW's). Inline code counts as the tokens it holds. */
function tally(prose: string): NoiseTally {
  const counts: NoiseTally = { word: 0, number: 0, gibberish: 0, punctuation: 0, tokens: 0 };
  for (const line of prose.split('\n')) {
    const empty = EMPTY_ROW.test(line);
    for (const token of line.replace(LINE_MARKUP, '').split(/\s+/)) {
      if (token === '' || (token === '|' && !empty)) continue;
      counts[tokenKind(token)] += 1;
      counts.tokens += 1;
    }
  }
  return counts;
}

const percent = (share: number): string => `${Math.round(share * 100)}%`;

/** What is wrong with a section's text (its lines outside fenced code) as words, or undefined. */
export function sectionNoise(heading: string, prose: string): string | undefined {
  const t = tally(prose);
  if (t.tokens === 0 || (t.tokens < MIN_TOKENS && prose.length < MIN_CHARS)) return undefined;
  const punctuation = t.punctuation / t.tokens;
  const words = t.word / t.tokens;
  if (punctuation > MAX_PUNCTUATION || (words < MIN_WORDS && t.punctuation > t.gibberish + t.number)) {
    return `${heading} is punctuation and symbols, not words (${percent(punctuation)} of its tokens have no letter or digit): write the section in sentences`;
  }
  if (t.gibberish / t.tokens > MAX_GIBBERISH || words < MIN_WORDS) {
    return (
      `${heading} is data, not words (${percent((t.gibberish + t.number) / t.tokens)} of its tokens are encoded data, hex, bare numbers or made-up words): ` +
      'say in sentences what happened, and name a hash or an identifier only where it matters'
    );
  }
  return undefined;
}
