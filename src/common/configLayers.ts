// Config files read into layers and combined: each file's values with where they came from,
// every problem at once (syntax, unknown keys, bad values, bands across files), and the hash
// of the bytes read. The daemon applies the layers (configService.ts); the CLI checks files.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readRegularFile } from './regularFile.js';
import { resolve } from 'node:path';
import { allowedValues, BANDS, CONFIG_KEYS, configProblems, configSchema, LIST_KEYS, NUMBER_KEYS, valueProblems, type Config, type ConfigKey } from '../events/config.js';
import { profileSource } from '../events/profiles.js';
import { NO_FILE_HASH } from '../events/configApproval.js';
import { parseConfigFile } from './configFile.js';
import { USER_ONLY_KEYS, userOnlyProblem } from './evalModelConfig.js';
import { userConfigPath } from './paths.js';
import { nearNames } from './nearNames.js';

export type Layer = { values: Record<string, unknown>; sources: Record<string, string> };
export type Effective = { config: Config; sources: Record<string, string> };
export type Env = Record<string, string | undefined>;
type Resolved = { ok: true; layer: Layer } | { ok: false; problems: string[] };

export const EMPTY_LAYER: Layer = { values: {}, sources: {} };
const KNOWN_KEYS: ReadonlySet<string> = new Set(CONFIG_KEYS);

/** Reads one config file into typed values; a missing file is an empty layer. */
export function readLayer(file: string, env: Env, userFile = userConfigPath(env)): Resolved {
  const read = readConfigFile(file, env, userFile);
  return read.problems.length === 0 ? { ok: true, layer: read.layer } : { ok: false, problems: read.problems };
}

/** sha256 of a config file's bytes, hex; a missing file hashes as an empty one. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The most a config file may hold: a few keys, with comments. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** A config file's bytes, or why they are not read (a link to /dev/zero or a pipe would hold the daemon forever). */
function configBytes(file: string): Buffer | string {
  const read = readRegularFile(file, MAX_CONFIG_BYTES);
  if ('bytes' in read) return read.bytes;
  if ('not' in read)
    return read.not === 'folder' ? 'is a folder; name the config file in it' : 'is not a regular file (a device, a pipe or a socket); a config file is a text file';
  if ('tooLarge' in read) return `is ${read.tooLarge} bytes, over the ${MAX_CONFIG_BYTES} a config file may be`;
  const code = read.unreadable;
  return code === 'EACCES' || code === 'EPERM' ? `cannot be read (${code}); make it readable by you` : `cannot be read (${code})`;
}

/**
 * A config file's good values, every problem it has (all at once: its syntax, unknown keys,
 * each bad value with what the key allows, and the bands it sets), and the hash of the very
 * bytes it was read from. The user's own keys (USER_ONLY_KEYS: `recap eval`'s model) are no
 * part of the gate's configuration: skipped in the user's file, refused in any other.
 */
export function readConfigFile(file: string, env: Env, userFile = userConfigPath(env)): { layer: Layer; hash: string; problems: string[] } {
  if (!existsSync(file)) return { layer: EMPTY_LAYER, hash: NO_FILE_HASH, problems: [] };
  const read = configBytes(file);
  if (typeof read === 'string') return { layer: EMPTY_LAYER, hash: NO_FILE_HASH, problems: [`${file}: ${read}`] };
  const bytes = read;
  const parsed = parseConfigFile(bytes.toString('utf8'), env);
  const problems = parsed.errors.map((e) => ({ line: e.line, text: `${file}:${e.line}: ${e.key ? `${e.key}: ` : ''}${e.reason}` }));
  const layer: Layer = { values: {}, sources: {} };
  for (const [key, { value, line, fromEnv }] of parsed.assignments) {
    const where = `${file}:${line}`;
    if (USER_ONLY_KEYS.has(key)) {
      if (resolve(file) !== resolve(userFile)) problems.push({ line, text: `${where}: ${key}: ${userOnlyProblem(key, userFile)}` });
      continue;
    }
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ line, text: `${where}: ${key}: ${unknownKey(key)}` });
      continue;
    }
    const typed = typedValue(key as ConfigKey, value);
    if (typeof typed === 'object' && typed !== null && 'problem' in typed) {
      problems.push({ line, text: `${where}: ${key}: ${typed.problem}` });
      continue;
    }
    layer.values[key] = typed;
    layer.sources[key] = fromEnv ? `env ${key} via ${where}` : where;
  }
  // Each value against what its key allows, in the same round (the bands are combine's: their
  // two ends may come from two files).
  for (const { key, message } of valueProblems(layer.values)) {
    const line = Number(/:(\d+)$/.exec(layer.sources[key] ?? '')?.[1] ?? 0);
    problems.push({ line, text: `${layer.sources[key] ?? file}: ${key}: ${message}` });
    delete layer.values[key];
    delete layer.sources[key];
  }
  return { layer, hash: contentHash(bytes), problems: problems.sort((a, b) => a.line - b.line).map((p) => p.text) };
}

function typedValue(key: ConfigKey, value: string | string[]): unknown {
  if (LIST_KEYS.has(key)) return Array.isArray(value) ? value : value === '' ? [] : [value];
  if (Array.isArray(value)) return { problem: `takes one value, not a list; it must be ${allowedValues(key)}` };
  if (NUMBER_KEYS.has(key)) {
    return /^-?\d+(?:\.\d+)?$/.test(value) ? Number(value) : { problem: `must be ${allowedValues(key)}; got ${JSON.stringify(value)}` };
  }
  return value;
}

/** Validates the layers together; a problem names the file and line that set the key. */
export function combine(layers: Layer[]): { ok: true; effective: Effective } | { ok: false; problems: string[] } {
  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'default']));
  for (const layer of layers) {
    Object.assign(values, layer.values);
    Object.assign(sources, layer.sources);
  }
  const problems = configProblems(values);
  if (problems.length === 0) {
    const config = configSchema.parse(values);
    // A key no file sets takes the profile's value where the profile has one: say so.
    for (const key of CONFIG_KEYS) if (sources[key] === 'default') sources[key] = profileSource(config.PROFILE, key) ?? 'default';
    return { ok: true, effective: { config, sources } };
  }
  return {
    ok: false,
    problems: problems.map(({ key, message }) => {
      const blamed = blamedKey(key, sources);
      return `${sources[blamed] ?? 'config'}: ${blamed}: ${message}`;
    }),
  };
}

/**
 * Every problem of these config files at once, without applying anything: each file's own,
 * then what their good values make together (a band whose ends two files set).
 */
export function checkConfigFiles(files: string[], env: Env): string[] {
  const reads = files.map((file) => readConfigFile(file, env));
  const problems = reads.flatMap((r) => r.problems);
  const together = combine(reads.map((r) => r.layer));
  if (!together.ok) problems.push(...together.problems.filter((p) => !problems.includes(p)));
  return problems;
}

/** A problem between a band's two ends is blamed on the end a file set. */
function blamedKey(key: string, sources: Record<string, string>): string {
  const band = BANDS.find((b) => (b as readonly string[]).includes(key));
  if (!band || sources[key] !== 'default') return key;
  return band.find((k) => sources[k] !== 'default') ?? key;
}

/** What an unknown key is told: the known key it is a typo of, if one is near, and every key there is. */
function unknownKey(key: string): string {
  const near = nearNames(key, [...CONFIG_KEYS, ...USER_ONLY_KEYS], 1)[0];
  const guess = near !== undefined ? ` (did you mean ${near}?)` : '';
  return `unknown key${guess}; known keys are ${CONFIG_KEYS.join(', ')}, and in your user config only ${[...USER_ONLY_KEYS].join(', ')}`;
}
