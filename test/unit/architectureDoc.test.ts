// docs/ARCHITECTURE.md is the contract the code is held to: every op of the socket protocol,
// event type, config key and RECAP_* variable the code has is on it, with the facts a reader
// relies on (an event's fields and version, a key's default), and its op table is the one
// scripts/docs-tables.mjs makes from the protocol's schemas.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import * as protocol from '../../src/protocol/protocol.js';
import { CONFIG_KEYS, configSchema } from '../../src/events/config.js';
import { CURRENT_VERSION, EVENT_TYPES, type EventType } from '../../src/events/events.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const doc = read('docs/ARCHITECTURE.md');

/** The generator's functions (a .mjs of scripts/, without types). */
type Generator = {
  opBlock: (protocol: unknown, source: string) => string;
  blockIn: (doc: string) => string | undefined;
  sameBlock: (a: string, b: string) => Promise<boolean>;
};

/** The text of the page's `## heading` section, up to the next `## `. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`docs/ARCHITECTURE.md has no "## ${heading}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** The cells of the table row in `text` whose first cell is `name` in backticks (padding allowed). */
function row(text: string, name: string): string[] | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells[0] === `\`${name}\``) return cells;
  }
  return undefined;
}

/** Each event type events.ts declares (`type: '...'` with a `data` literal), with its data fields, `?` marking the optional. */
function declaredEvents(): Map<string, string[]> {
  const file = ts.createSourceFile('events.ts', read('src/events/events.ts'), ts.ScriptTarget.Latest, true);
  const events = new Map<string, string[]>();
  for (const statement of file.statements) {
    if (!ts.isTypeAliasDeclaration(statement) || !ts.isTypeLiteralNode(statement.type)) continue;
    const members = statement.type.members.filter(ts.isPropertySignature);
    const type = members.find((m) => m.name.getText(file) === 'type')?.type;
    const data = members.find((m) => m.name.getText(file) === 'data')?.type;
    if (!type || !ts.isLiteralTypeNode(type) || !ts.isStringLiteral(type.literal) || !data || !ts.isTypeLiteralNode(data)) continue;
    const fields = data.members.filter(ts.isPropertySignature).map((m) => `${m.name.getText(file)}${m.questionToken ? '?' : ''}`);
    events.set(type.literal.text, fields);
  }
  return events;
}

/** Every file under a folder of the repository. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The RECAP_* variables recap reads or sets, from src/ and bin/: every RECAP_* name, less
 * those that are only constants of the code (declared with const and never read from an
 * environment, as RECAP_BIN is).
 */
function recapVariables(): string[] {
  const files = [...filesUnder('src'), ...filesUnder('bin')];
  const code = files.map((file) => readFileSync(file, 'utf8')).join('\n');
  const shell = files
    .filter((file) => file.endsWith('.sh'))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const names = new Set([...code.matchAll(/RECAP_[A-Z0-9_]+/g)].map((m) => m[0]));
  const readFromEnv = (name: string) => new RegExp(`env(?:\\.${name}\\b|\\[['"]${name}['"]\\])|['"]${name}['"]`).test(code) || new RegExp(`\\$\\{?${name}\\b`).test(shell);
  const constant = (name: string) => new RegExp(`\\b(?:const|let|var)\\s+${name}\\b`).test(code) && !readFromEnv(name);
  return [...names].filter((name) => !constant(name)).sort();
}

/** A config key's default as the page writes it in config.conf's syntax. */
function spelled(value: unknown): string {
  return Array.isArray(value) ? `(${value.map((v) => JSON.stringify(v)).join(' ')})` : String(value);
}

describe('docs/ARCHITECTURE.md', () => {
  it('has the op table scripts/docs-tables.mjs makes from src/protocol/protocol.ts, with a row for every op', async () => {
    const generator = (await import(new URL('../../scripts/docs-tables.mjs', import.meta.url).href)) as Generator;
    const block = generator.blockIn(doc);
    expect(block, 'the <!-- ops:begin --> ... <!-- ops:end --> block').toBeDefined();
    const missing = protocol.OPS.filter((op) => row(block!, op) === undefined);
    expect(missing, 'ops with no row in the op table').toEqual([]);
    const made = generator.opBlock(protocol, read('src/protocol/protocol.ts'));
    const same = await generator.sameBlock(block!, made);
    expect(same, 'the op table is out of date: run npm run build && npm run docs').toBe(true);
  });

  it('lists every event type with its schema version and its fields', () => {
    const text = section('Events');
    const declared = declaredEvents();
    const types = [...new Set([...EVENT_TYPES, ...declared.keys()])];
    expect(types.length).toBeGreaterThanOrEqual(15);
    for (const type of types) {
      const cells = row(text, type);
      expect(cells, `a row for the event ${type}`).toBeDefined();
      expect(cells![1], `${type}'s version`).toBe(String(CURRENT_VERSION[type as EventType]));
      const fields = declared.get(type) ?? [];
      expect(fields.length, `${type}'s fields in events.ts`).toBeGreaterThan(0);
      const shown = [...cells![3]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      expect(shown, `${type}'s fields`).toEqual(fields);
    }
  });

  it('lists every config key with its default', () => {
    const text = section('Configuration');
    const properties = (z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, { default?: unknown }> }).properties;
    expect(CONFIG_KEYS.length).toBeGreaterThanOrEqual(21);
    for (const key of CONFIG_KEYS) {
      const cells = row(text, key);
      expect(cells, `a row for the config key ${key}`).toBeDefined();
      const fallback = properties[key]?.default;
      if (fallback !== undefined) expect(cells![1]!.startsWith(`\`${spelled(fallback)}\``), `${key}'s default ${spelled(fallback)}, not ${cells![1]}`).toBe(true);
    }
  });

  it('lists every RECAP_* variable', () => {
    const text = section('Environment variables');
    const variables = recapVariables();
    expect(variables).toContain('RECAP_SOCKET');
    expect(variables).not.toContain('RECAP_BIN');
    const missing = variables.filter((name) => row(text, name) === undefined);
    expect(missing, 'RECAP_* variables with no row').toEqual([]);
  });
});
