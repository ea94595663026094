// The import graph of src/: no cycle (type-only imports included), and imports go one way
// between the layers docs/ARCHITECTURE.md names.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Each layer and the layers it may import; a file at src/'s top is the composition root. */
const MAY_IMPORT: Record<string, string[]> = {
  events: [],
  platform: ['events'],
  common: ['platform', 'events'],
  agents: ['common', 'platform', 'events'],
  protocol: ['agents', 'common', 'platform', 'events'],
  hook: ['protocol', 'agents', 'common', 'platform', 'events'],
  client: ['hook', 'protocol', 'agents', 'common', 'platform', 'events'],
  daemon: ['hook', 'protocol', 'agents', 'common', 'platform', 'events'],
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(SRC, resolve(dirname(file), (m[1] ?? m[2]!).replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** Every strongly connected set of more than one file (Tarjan), and every file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(set.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const layerOf = (file: string): string | undefined => (file.includes('/') ? file.split('/')[0] : undefined);

/** Every import against the layer rule, and every file in a folder the rule does not name. */
function wrongWay(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === undefined) continue;
    const may = MAY_IMPORT[from];
    if (may === undefined) {
      wrong.push(`${file} is in a folder the layer rule does not name`);
      continue;
    }
    for (const target of targets) {
      const to = layerOf(target);
      if (to === undefined) wrong.push(`${file} -> ${target} (the composition root)`);
      else if (to !== from && !may.includes(to)) wrong.push(`${file} -> ${target}`);
    }
  }
  return wrong;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('has no cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('reads the imports of every layer in src/', () => {
    expect(new Set([...graph.keys()].map(layerOf))).toEqual(new Set([undefined, ...Object.keys(MAY_IMPORT)]));
  });

  it('goes one way between layers: client and daemon never import each other', () => {
    expect(wrongWay(graph)).toEqual([]);
  });

  it('finds a cycle and a wrong-way import when there is one', () => {
    const planted = new Map([
      ['daemon/a.ts', ['daemon/b.ts']],
      ['daemon/b.ts', ['daemon/a.ts']],
    ]);
    expect(cycles(planted)).toEqual([['daemon/a.ts', 'daemon/b.ts']]);
    const wrongWays = new Map([
      ['client/a.ts', ['daemon/b.ts', 'common/c.ts', 'client/d.ts']],
      ['events/e.ts', ['index.ts']],
      ['extras/f.ts', []],
    ]);
    expect(wrongWay(wrongWays)).toEqual([
      'client/a.ts -> daemon/b.ts',
      'events/e.ts -> index.ts (the composition root)',
      'extras/f.ts is in a folder the layer rule does not name',
    ]);
  });
});
