// The summary corpora in test/fixtures/summaries: genuine summaries that must pass and junk
// that must fail, each with the window it was written for. A case file is blocks opened by
// a line `@@@ <kind>`: `interaction` (one text of the window), `rolled` (a summary a rollup
// rolls up), `earlier` (an earlier accepted summary of the job), `summary` (the submission),
// `expect <words>` (junk only: a fragment the right rejection message contains) and
// `window <file>` (the interactions of another case, by its path under summaries/).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
const ROOT = resolve(import.meta.dirname, '../..');

export const CORPUS = join(ROOT, 'test', 'fixtures', 'summaries');

export type Case = {
  name: string;
  interactions: string[];
  rolled: string[];
  earlier: string[];
  summary: string;
  expect: string[];
};

export function readCase(path: string): Case {
  const c: Case = { name: path, interactions: [], rolled: [], earlier: [], summary: '', expect: [] };
  let kind: string | undefined;
  let block: string[] = [];
  const close = () => {
    const text = block.join('\n').trim();
    if (kind === 'interaction') c.interactions.push(text);
    else if (kind === 'rolled') c.rolled.push(text);
    else if (kind === 'earlier') c.earlier.push(text);
    else if (kind === 'summary') c.summary = text;
    block = [];
  };
  for (const line of readFileSync(join(CORPUS, path), 'utf8').split('\n')) {
    const marker = /^@@@ (\w+)\s*(.*)$/.exec(line);
    if (!marker) {
      block.push(line);
      continue;
    }
    close();
    kind = marker[1];
    if (kind === 'expect') c.expect.push(marker[2]!);
    if (kind === 'window') c.interactions.push(...readCase(marker[2]!).interactions);
  }
  close();
  return c;
}

export function readCorpus(folder: 'genuine' | 'junk'): Case[] {
  return readdirSync(join(CORPUS, folder))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => readCase(join(folder, f)));
}
