// Reads a recorded command output under test/fixtures, without its header: the comment
// lines (`# …`) at its top and the blank line after them, which say where its format is documented.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');

export function recorded(path: string): string {
  const lines = readFileSync(join(FIXTURES, path), 'utf8').split('\n');
  let start = 0;
  while (lines[start]?.startsWith('#')) start += 1;
  if (lines[start] === '') start += 1;
  return lines.slice(start).join('\n');
}
