// The summary corpora in test/fixtures/summaries: genuine summaries that must pass and junk
// that must fail, each with the window it was written for, read by recap eval's own reader
// (src/events/evalCorpus.ts describes the format).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCase, type EvalCase, type Label } from '../../src/events/evalCorpus.js';
const ROOT = resolve(import.meta.dirname, '../..');

export const CORPUS = join(ROOT, 'test', 'fixtures', 'summaries');

export type Case = EvalCase;

/** The case at `path` under the corpus folder (`genuine/...` or `junk/...`). */
export function readCase(path: string): Case {
  const label: Label = path.startsWith('junk/') ? 'junk' : 'genuine';
  return parseCase(path, label, readFileSync(join(CORPUS, path), 'utf8'), readCase);
}

export function readCorpus(folder: Label): Case[] {
  return readdirSync(join(CORPUS, folder))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => readCase(join(folder, f)));
}
