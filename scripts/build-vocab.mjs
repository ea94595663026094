// Writes dist/vocab/<encoding>.ranks for each exact encoding recap counts with: gpt-tokenizer's
// tiktoken file read into recap's tables (events/bytePairs.ts) once, here, so the daemon reads
// them back in a few milliseconds instead of parsing the file (about a hundred). Each names the
// SHA-256 of the file it was made from: after gpt-tokenizer changes, the daemon ignores it and
// reads the file, until the next build. Run after tsc (it uses dist/).
import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BytePairRanks } from '../dist/events/bytePairs.js';
import { vocabularyFile, vocabularyTables } from '../dist/common/tokenCounter.js';

for (const encoding of ['o200k_base', 'cl100k_base']) {
  const file = readFileSync(vocabularyFile(encoding));
  const out = fileURLToPath(vocabularyTables(encoding));
  mkdirSync(new URL('.', vocabularyTables(encoding)), { recursive: true });
  writeFileSync(out, BytePairRanks.fromTiktoken(file).tables(hash('sha256', file, 'hex')));
}
