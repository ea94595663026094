// Files and functions a reader can hold: no file of src/ over 400 lines and no function over
// 80, except a parser or lexer that says so in its opening comment (a grammar reads best whole).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/** What a file's opening comment says to be excepted. */
const EXCEPTED = /^\/\/ .*\b(?:parser|lexer)\b/im;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** The opening comment: the `//` lines the file starts with. */
const openingComment = (text: string): string => /^(?:\/\/[^\n]*\n)*/.exec(text)![0];

/** Every function, method and arrow function over `max` lines, as name:line and its length. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      const name = node.name?.getText(source) ?? '(anonymous)';
      if (lines > max) found.push(`${file}:${first + 1} ${name}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of src/', () => {
  const files = sourceFiles(SRC).map((file) => ({ file: relative(SRC, file), text: readFileSync(file, 'utf8') }));
  const held = files.filter(({ text }) => !EXCEPTED.test(openingComment(text)));

  it(`has no file over ${MAX_FILE_LINES} lines but a parser's or a lexer's`, () => {
    const long = held.map(({ file, text }) => ({ file, lines: text.split('\n').length - 1 })).filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines but a parser's or a lexer's`, () => {
    expect(held.flatMap(({ file, text }) => longFunctions(file, text, MAX_FUNCTION_LINES))).toEqual([]);
  });

  it('measures a long function, and excepts only a file that says it is a parser or lexer', () => {
    const body = Array.from({ length: 81 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    expect(longFunctions('x.ts', `function long() {\n${body}\n}\n`, MAX_FUNCTION_LINES)).toEqual(['x.ts:1 long: 83 lines']);
    expect(EXCEPTED.test(openingComment('// The shell lexer: one pass.\nconst a = 1;\n'))).toBe(true);
    expect(EXCEPTED.test(openingComment('const a = 1;\n// a parser\n'))).toBe(false);
  });
});
