// Only src/agents knows the agents: everything else takes their names, tools and files from
// there, so that adding an agent is one folder. Comments may name one as an example.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES } from '../../src/agents/known.js';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** Where code names an agent (a word of a string, regular expression, template or identifier): file:line and the word. */
function agentsNamed(file: string, text: string, names: readonly string[]): string[] {
  const word = new RegExp(`\\b(${names.join('|')})\\b`, 'i');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isRegularExpressionLiteral(node) || ts.isTemplateLiteralToken(node)) {
      const match = word.exec(node.text);
      if (match) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${match[1]}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the agents are named only in src/agents', () => {
  it('names no agent in code outside src/agents', () => {
    const named = sourceFiles(SRC)
      .filter((file) => !relative(SRC, file).startsWith('agents/'))
      .flatMap((file) => agentsNamed(relative(SRC, file), readFileSync(file, 'utf8'), AGENT_NAMES));
    expect(named).toEqual([]);
  });

  it('finds a name in code, and none in a comment', () => {
    const text = "// claude -p is an example\nconst agent = 'claude';\n/* codex */ const url = 'http://x//codex';\n";
    expect(agentsNamed('x.ts', text, ['claude', 'codex'])).toEqual(['x.ts:2: claude', 'x.ts:3: codex']);
  });
});
