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

export async function tokenCounter(config: Pick<Config, 'TOKEN_ENCODING' | 'TOKEN_WORD_RATIO'>): Promise<TokenCounter> {
  if (config.TOKEN_ENCODING === 'words') return wordsCounter(config.TOKEN_WORD_RATIO);
  const { countTokens } = await ENCODINGS[config.TOKEN_ENCODING]();
  return (text) => countTokens(text, asOrdinaryText);
}
