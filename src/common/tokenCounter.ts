// The token counter a config asks for. An exact encoding's vocabulary is gpt-tokenizer's
// own tiktoken file, read once on first use into the compact tables of events/bytePairs.ts:
// from the tables `npm run build` made of that file (dist/vocab, a few milliseconds), or from
// the file itself where they are missing or were made from another version of it (about a
// hundred). Special-token strings such as <|endoftext|> in user text are ordinary text to
// recap, as its vocabulary has no special tokens.
import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Config } from '../events/config.js';
import { BytePairRanks, bytePairCounter } from '../events/bytePairs.js';
import { withLongRuns, wordsCounter, type TokenCounter } from '../events/tokens.js';

export type Encoding = Exclude<Config['TOKEN_ENCODING'], 'words'>;

/** gpt-tokenizer's tiktoken file of `encoding`. */
export const vocabularyFile = (encoding: Encoding): string => createRequire(import.meta.url).resolve(`gpt-tokenizer/data/${encoding}.tiktoken`);

/** Where `npm run build` writes the tables of `encoding` (scripts/build-vocab.mjs), from dist/common or dist/daemon's bundle alike. */
export const vocabularyTables = (encoding: Encoding): URL => new URL(`../vocab/${encoding}.ranks`, import.meta.url);

/** The vocabulary of `encoding`: from its tables when they were made from this very file. */
export async function vocabulary(encoding: Encoding): Promise<BytePairRanks> {
  const [file, tables] = await Promise.all([readFile(vocabularyFile(encoding)), readFile(vocabularyTables(encoding)).catch(() => undefined)]);
  return (tables && BytePairRanks.fromTables(tables, hash('sha256', file, 'hex'))) ?? BytePairRanks.fromTiktoken(file);
}

async function exactCounter(encoding: Encoding): Promise<TokenCounter> {
  const [{ O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX }, ranks] = await Promise.all([import('gpt-tokenizer/encodingParams/constants'), vocabulary(encoding)]);
  const split = encoding === 'o200k_base' ? O200K_TOKEN_SPLIT_REGEX : CL100K_TOKEN_SPLIT_REGEX;
  return bytePairCounter(ranks, split);
}

export async function tokenCounter(config: Pick<Config, 'TOKEN_ENCODING' | 'TOKEN_WORD_RATIO'>): Promise<TokenCounter> {
  if (config.TOKEN_ENCODING === 'words') return wordsCounter(config.TOKEN_WORD_RATIO);
  return withLongRuns(await exactCounter(config.TOKEN_ENCODING));
}
