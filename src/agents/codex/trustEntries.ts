// The trust entries of one hooks file in the user's config.toml, kept in step with the file.
// Codex keys an entry by the handler's place, so when a handler moves (recap's group taken
// out from before a group the user added later) its entry moves with it, unchanged: a
// handler the user trusted stays trusted and one they did not stays untrusted. recap's own
// entries carry the hash of recap's handlers. config.toml is the user's file: it is edited
// as text, a table header or a table at a time, and every other byte stays as it was.
import { isDeepStrictEqual } from 'node:util';
import { isTable, parseToml, tomlString, TomlScalar, type TomlDocument, type TomlHeader, type TomlTable, type TomlValue } from './toml.js';
import { places, type HooksFile, type Place } from './hooksFile.js';
import { handlerHash, trustKey, type CodexHandler } from './trust.js';

/** config.toml in a shape recap will not edit; the message says what and what to do. */
export class TrustEditError extends Error {}

/** A handler's entry in hooks.state, as far as Codex reads it. */
export type TrustState = { trustedHash?: string; enabled?: boolean };

const stateTable = (data: TomlTable): TomlTable | undefined => {
  const hooks = data.hooks;
  const state = isTable(hooks) ? hooks.state : undefined;
  return isTable(state) ? state : undefined;
};

/** Every hooks.state entry, by key. */
export function trustStates(doc: TomlDocument): Map<string, TrustState> {
  const states = new Map<string, TrustState>();
  for (const [key, value] of Object.entries(stateTable(doc.data) ?? {})) {
    if (!isTable(value)) continue;
    const { trusted_hash: hash, enabled } = value;
    states.set(key.trim(), { ...(typeof hash === 'string' ? { trustedHash: hash } : {}), ...(typeof enabled === 'boolean' ? { enabled } : {}) });
  }
  return states;
}

const keyOf = (file: string, p: Place) => trustKey(file, p.event, p.group, p.handler);

/** The hash Codex wants for the handler at a place. */
export const placeHash = (p: Place): string => handlerHash(p.event, p.matcher, p.entry as CodexHandler);

/** `[hooks.state."<key>"]` headers of this file's keys, each with the statements of its table. */
type Table = { key: string; header: TomlHeader; pairs: { start: number; end: number; key: string[]; value: TomlValue }[] };

function tablesOf(doc: TomlDocument, prefix: string): Table[] {
  const tables: Table[] = [];
  let current: Table | undefined;
  for (const statement of doc.statements) {
    if (statement.kind === 'header') {
      const [a, b, key] = statement.path;
      const ours = !statement.array && statement.path.length === 3 && a === 'hooks' && b === 'state' && key!.startsWith(prefix);
      current = ours ? { key: key!, header: statement, pairs: [] } : undefined;
      if (current) tables.push(current);
    } else if (current) current.pairs.push(statement);
  }
  return tables;
}

/**
 * What recap cannot edit safely: `hooks` or `hooks.state` written as a value (an inline
 * table), or one of this file's entries written other than as its own `[hooks.state."…"]`
 * table (dotted keys, an inline table, a table inside it).
 */
function refuseOtherForms(doc: TomlDocument, prefix: string, file: string): void {
  const hooks = doc.data.hooks;
  const state = isTable(hooks) ? hooks.state : undefined;
  const hint = `write them as [hooks.state."<key>"] tables, or trust recap's hooks in Codex's /hooks, then run recap install codex again`;
  for (const statement of doc.statements) {
    const path = statement.kind === 'header' ? statement.path : [...statement.table, ...statement.key];
    const [a, b, key] = path;
    if (a !== 'hooks') continue;
    // `hooks = {…}`, `state = {…}` or `[[hooks.state]]`: a value, which no table can add to.
    const whole = (path.length === 1 || (path.length === 2 && b === 'state')) && (statement.kind === 'pair' || statement.array);
    const entryElsewhere =
      b === 'state' && key?.startsWith(prefix) === true && !(statement.kind === 'header' && path.length === 3) && !(statement.kind === 'pair' && statement.table.length === 3);
    if (whole || entryElsewhere) {
      throw new TrustEditError(`the hooks.state entries in config.toml are not all written as tables (at "${path.join('.')}"), which recap does not edit for ${file}; ${hint}`);
    }
  }
  if ((hooks !== undefined && !isTable(hooks)) || (state !== undefined && !isTable(state))) {
    throw new TrustEditError(`hooks or hooks.state in config.toml is not a table; ${hint}`);
  }
}

type Edit = { start: number; end: number; text: string };

/** Where a table's own lines are: its header, its key/value lines, and the blank line recap put before it. */
function tableLines(text: string, table: Table): Edit[] {
  const lines = [table.header, ...table.pairs].map(({ start, end }) => ({ start, end, text: '' }));
  const before = text.lastIndexOf('\n', table.header.start - 2);
  const blank = text.slice(before + 1, table.header.start);
  if (table.header.start > 0 && /^[ \t]*\r?\n$/.test(blank)) lines[0] = { ...lines[0]!, start: before + 1 };
  return lines;
}

/**
 * config.toml with this hooks file's trust entries as they must be once `before` becomes
 * `after`: the user's entries follow their handlers, recap's carry recap's hashes, any other
 * entry for a place a handler was or will be at goes. Unchanged text when nothing moves.
 */
export function retrust(text: string, file: string, before: HooksFile, after: HooksFile): string {
  const doc = parseToml(text);
  const prefix = `${file}:`;
  const old = places(before);
  const now = places(after);
  const mine = (list: Place[], recap: boolean) => list.filter((p) => p.recap === recap);
  const userBefore = mine(old, false);
  const userAfter = mine(now, false);
  if (userBefore.length !== userAfter.length) throw new Error('recap changed handlers that are not its own');
  const moves = new Map(userBefore.map((p, i) => [keyOf(file, p), keyOf(file, userAfter[i]!)]));
  const recapHashes = new Map(mine(now, true).map((p) => [keyOf(file, p), placeHash(p)]));
  const oldPlaces = new Set(old.map((p) => keyOf(file, p)));
  const finalPlaces = new Set(now.map((p) => keyOf(file, p)));
  const tables = tablesOf(doc, prefix);
  if (tables.length === 0 && recapHashes.size === 0) return text;
  refuseOtherForms(doc, prefix, file);

  // Each entry of this file: a user's follows its handler; recap's stays if it is already
  // right; any other at a place a handler was or will be goes (recap writes its own anew);
  // one for a place no handler was or will be is no business of this change.
  const edits: Edit[] = [];
  const kept = new Set<string>();
  for (const table of tables) {
    const moved = moves.get(table.key);
    const hash = recapHashes.get(table.key);
    if (moved !== undefined) {
      if (moved !== table.key) edits.push({ ...table.header.bracket, text: `[hooks.state.${tomlString(moved)}]` });
    } else if (hash !== undefined && table.pairs.length === 1 && isDeepStrictEqual(table.pairs[0]!.key, ['trusted_hash']) && table.pairs[0]!.value === hash) {
      kept.add(table.key);
    } else if (oldPlaces.has(table.key) || finalPlaces.has(table.key)) {
      edits.push(...tableLines(text, table));
    }
  }

  let out = text;
  for (const edit of [...edits].sort((x, y) => y.start - x.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  for (const [key, hash] of recapHashes) {
    if (kept.has(key)) continue;
    if (out !== '' && !out.endsWith('\n')) out += newline;
    out += `${out === '' ? '' : newline}[hooks.state.${tomlString(key)}]${newline}trusted_hash = ${tomlString(hash)}${newline}`;
  }
  verify(text, out, prefix, (state) => expectedStates(state, moves, recapHashes, finalPlaces, oldPlaces));
  return out;
}

/** This file's entries as they must read after the change. */
function expectedStates(state: TomlTable, moves: Map<string, string>, recapHashes: Map<string, string>, finalPlaces: Set<string>, oldPlaces: Set<string>): TomlTable {
  const expected: TomlTable = {};
  const set = (key: string, value: TomlValue) => Object.defineProperty(expected, key, { value, enumerable: true, writable: true, configurable: true });
  for (const [key, value] of Object.entries(state)) {
    const moved = moves.get(key);
    if (moved !== undefined) set(moved, value);
    else if (!oldPlaces.has(key) && !finalPlaces.has(key)) set(key, value);
  }
  for (const [key, hash] of recapHashes) set(key, { trusted_hash: hash });
  return expected;
}

/**
 * The edit, read back: it must parse, leave everything but this file's entries as it was,
 * and hold the entries it means to. Anything else is recap's mistake, and nothing is written.
 */
function verify(before: string, after: string, prefix: string, expected: (oldEntries: TomlTable) => TomlTable): void {
  const split = (data: TomlTable) => {
    const state = stateTable(data) ?? {};
    const ours: TomlTable = {};
    for (const key of Object.keys(state)) {
      if (!key.startsWith(prefix)) continue;
      Object.defineProperty(ours, key, { value: state[key], enumerable: true, writable: true, configurable: true });
      delete state[key];
    }
    const hooks = data.hooks;
    if (isTable(hooks) && isTable(hooks.state) && Object.keys(hooks.state).length === 0) delete hooks.state;
    if (isTable(hooks) && Object.keys(hooks).length === 0) delete data.hooks;
    return { rest: data, ours };
  };
  const old = split(parseToml(before).data);
  let now: ReturnType<typeof split>;
  try {
    now = split(parseToml(after).data);
  } catch (error) {
    throw new Error(`recap's edit of config.toml would not parse (${(error as Error).message}); nothing was written`, { cause: error });
  }
  if (!sameValue(old.rest, now.rest) || !sameValue(expected(old.ours), now.ours)) {
    throw new Error("recap's edit of config.toml would change more than recap's trust entries; nothing was written");
  }
}

/** Whether two TOML values hold the same data (numbers and dates as written). */
export function sameValue(a: TomlValue, b: TomlValue): boolean {
  if (a instanceof TomlScalar || b instanceof TomlScalar) return a instanceof TomlScalar && b instanceof TomlScalar && a.raw === b.raw;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]!));
  if (isTable(a) && isTable(b)) {
    const keys = Object.keys(a).sort();
    return isDeepStrictEqual(keys, Object.keys(b).sort()) && keys.every((k) => sameValue(a[k]!, b[k]!));
  }
  return a === b;
}
