// The token counter a config asks for. An exact encoding's vocabulary is gpt-tokenizer's
// own tiktoken file, read once on first use (a few tens of milliseconds) into the compact
// tables of events/bytePairs.ts; special-token strings such as <|endoftext|> in user text
// are ordinary text to recap, as its vocabulary has no special tokens.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Config } from '../events/config.js';
import { BytePairRanks, bytePairCounter } from '../events/bytePairs.js';
import { withLongRuns, wordsCounter, type TokenCounter } from '../events/tokens.js';

type Encoding = Exclude<Config['TOKEN_ENCODING'], 'words'>;

async function exactCounter(encoding: Encoding): Promise<TokenCounter> {
  const { O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants');
  const file = await readFile(createRequire(import.meta.url).resolve(`gpt-tokenizer/data/${encoding}.tiktoken`));
  const split = encoding === 'o200k_base' ? O200K_TOKEN_SPLIT_REGEX : CL100K_TOKEN_SPLIT_REGEX;
  return bytePairCounter(BytePairRanks.fromTiktoken(file), split);
}

export async function tokenCounter(config: Pick<Config, 'TOKEN_ENCODING' | 'TOKEN_WORD_RATIO'>): Promise<TokenCounter> {
  if (config.TOKEN_ENCODING === 'words') return wordsCounter(config.TOKEN_WORD_RATIO);
  return withLongRuns(await exactCounter(config.TOKEN_ENCODING));
}
