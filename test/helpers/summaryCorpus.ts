// The summary corpora in test/fixtures/summaries: genuine summaries that must pass and junk
// that must fail, each with the window it was written for, read by recap eval's own reader
// (src/events/evalCorpus.ts describes the format).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCase, type EvalCase, type Label } from '../../src/events/evalCorpus.js';
const ROOT = resolve(import.meta.dirname, '../..');

export const CORPUS = join(ROOT, 'test', 'fixtures', 'summaries');
/** recap eval's known corpus: its README says what each figure must come out as. */
export const SMALL_CORPUS = join(ROOT, 'test', 'fixtures', 'eval-small');

export type Case = EvalCase;

/** The case at `path` under the corpus folder (`genuine/...` or `junk/...`). */
export function readCase(path: string, root = CORPUS): Case {
  const label: Label = path.startsWith('junk/') ? 'junk' : 'genuine';
  return parseCase(path, label, readFileSync(join(root, path), 'utf8'), (other) => readCase(other, root));
}

export function readCorpus(folder: Label, root = CORPUS): Case[] {
  return readdirSync(join(root, folder))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => readCase(join(folder, f), root));
}
