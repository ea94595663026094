// Token counting. Exact counts come from gpt-tokenizer; `words` reproduces the shell
// prototype's estimate (whitespace-separated words times a ratio, truncated as awk's %d does).
// An encoding's tables take a few hundred milliseconds to load, so each is loaded on first use.
import type { Config } from './config.js';

export type TokenCounter = (text: string) => number;

type Count = (text: string, options: { disallowedSpecial: Set<string> }) => number;

// Special-token strings such as <|endoftext|> in user text are ordinary text to recap.
const asOrdinaryText = { disallowedSpecial: new Set<string>() };

const ENCODINGS: Record<'o200k_base' | 'cl100k_base', () => Promise<{ countTokens: Count }>> = {
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base'),
};

export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}

export function wordsCounter(ratio: number): TokenCounter {
  return (text) => Math.floor(wordCount(text) * ratio);
}

/** Runs of this many non-space characters are counted piece by piece (see withLongRuns). */
const LONG_RUN = 256;
const LONG_RUN_PRESENT = new RegExp(`\\S{${LONG_RUN}}`);
const LONG_RUNS = new RegExp(`\\S{${LONG_RUN},}`, 'g');

/**
 * Byte-pair encoding is quadratic in the length of one unbroken word: a 300 KB run of
 * letters would hold the daemon for seconds. Such runs are counted in pieces, which can
 * differ from the exact count by a token at each cut; ordinary text is counted exactly.
 */
export function withLongRuns(count: TokenCounter): TokenCounter {
  return (text) => {
    if (!LONG_RUN_PRESENT.test(text)) return count(text);
    let total = 0;
    let last = 0;
    for (const match of text.matchAll(LONG_RUNS)) {
      total += count(text.slice(last, match.index));
      for (let i = 0; i < match[0].length; i += LONG_RUN) total += count(match[0].slice(i, i + LONG_RUN));
      last = match.index + match[0].length;
    }
    return total + count(text.slice(last));
  };
}

export async function tokenCounter(config: Pick<Config, 'TOKEN_ENCODING' | 'TOKEN_WORD_RATIO'>): Promise<TokenCounter> {
  if (config.TOKEN_ENCODING === 'words') return wordsCounter(config.TOKEN_WORD_RATIO);
  const { countTokens } = await ENCODINGS[config.TOKEN_ENCODING]();
  return withLongRuns((text) => countTokens(text, asOrdinaryText));
}
