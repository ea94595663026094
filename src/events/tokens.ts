// Token counting. Exact counts come from gpt-tokenizer; `words` reproduces the shell
// prototype's estimate (whitespace-separated words times a ratio, truncated as awk's %d does).
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import type { Config } from './config.js';

export type TokenCounter = (text: string) => number;

// Special-token strings such as <|endoftext|> in user text are ordinary text to recap.
const asOrdinaryText = { disallowedSpecial: new Set<string>() };

export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}

export function tokenCounter(config: Pick<Config, 'TOKEN_ENCODING' | 'TOKEN_WORD_RATIO'>): TokenCounter {
  switch (config.TOKEN_ENCODING) {
    case 'o200k_base':
      return (text) => countO200k(text, asOrdinaryText);
    case 'cl100k_base':
      return (text) => countCl100k(text, asOrdinaryText);
    case 'words': {
      const ratio = config.TOKEN_WORD_RATIO;
      return (text) => Math.floor(wordCount(text) * ratio);
    }
  }
}
