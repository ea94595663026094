// The pieces the projection keeps of a submitted summary (its gist, its references' paths
// and reasons) keep none of its text alive: V8 makes a substring a view into the string it
// was cut from, and the chain of a daemon under load kept every accepted summary's whole text
// through its gist.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { deriveGist } from '../../src/events/gist.js';
import { summaryParts } from '../../src/events/summaryParts.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const TEXTS = 40;
/** Characters of each text: TEXTS of them are 10 MB, the cuts a few kilobytes. */
const TEXT_CHARS = 256 * 1024;

/** A summary of TEXT_CHARS characters, its own: a Gist line, a section, a Files section. */
function summary(i: number): string {
  const head = `Gist: round ${i} of the parser work, its error report with lines and keys\n\n## Decisions\n`;
  const files = `\n\n## Files\n- ref src/parser/errors-${i}.ts — where round ${i} reports each error with its line\n`;
  const body = `The parser reports error ${i} with its line and key, and goes on. `.repeat(TEXT_CHARS / 64);
  return head + body.slice(0, TEXT_CHARS - head.length - files.length) + files;
}

/** Heap bytes still used after `keep` made TEXTS values and only they are kept. */
function retained(keep: (text: string) => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: TEXTS }, (_, i) => keep(summary(i)));
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toHaveLength(TEXTS);
  return after - before;
}

describe('the cuts of a summary the projection keeps', () => {
  it('a gist and references parsed from the text keep none of it', () => {
    const bytes = retained((text) => {
      const { gist, references } = summaryParts(text, ['Decisions']);
      expect(references).toHaveLength(1);
      return { gist, references };
    });
    // The texts are 10 MB; their gists and references, a few kilobytes.
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('a gist recap derives from the text keeps none of it', () => {
    const bytes = retained((text) => deriveGist(text));
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
  });
});
