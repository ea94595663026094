// The build writes the token vocabularies' tables (scripts/build-vocab.mjs), so the daemon
// reads them in milliseconds instead of parsing gpt-tokenizer's file; they must be made from
// the installed file, or the daemon would silently be back to the slow parse.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BytePairRanks } from '../../src/events/bytePairs.js';

// The built module: where it looks for the tables is relative to itself, in dist/.
const built = (await import(new URL('../../dist/common/tokenCounter.js', import.meta.url).href)) as typeof import('../../src/common/tokenCounter.js');
const { vocabularyFile, vocabularyTables } = built;

describe('the vocabularies npm run build makes', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    it(`holds ${encoding}'s tables, made from the tiktoken file installed`, () => {
      const file = readFileSync(vocabularyFile(encoding));
      const tables = readFileSync(fileURLToPath(vocabularyTables(encoding)));
      const ranks = BytePairRanks.fromTables(tables, createHash('sha256').update(file).digest('hex'));
      expect(ranks?.size).toBe(BytePairRanks.fromTiktoken(file).size);
    });
  }
});
