// The configuration in force: defaults, then the user file, then a job's project file.
// A file that fails to parse or validate is reported (file, line, key, reason) and the
// last good configuration stays in force.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { projectConfigPath } from '../common/paths.js';
import {
  allowedValues,
  BANDS,
  CONFIG_KEYS,
  configProblems,
  configSchema,
  DEFAULT_CONFIG,
  LIST_KEYS,
  NUMBER_KEYS,
  valueProblems,
  type Config,
  type ConfigKey,
} from '../events/config.js';
import { canonicalJson } from '../events/canonical.js';
import { parseConfigFile } from '../common/configFile.js';
import { configChanges, guardedValues, type KeyChange } from '../events/configPolicy.js';
import type { ApprovedConfig } from './projection.js';

type Env = Record<string, string | undefined>;
export type Layer = { values: Record<string, unknown>; sources: Record<string, string> };
export type Effective = { config: Config; sources: Record<string, string> };
type Resolved = { ok: true; layer: Layer } | { ok: false; problems: string[] };

const EMPTY_LAYER: Layer = { values: {}, sources: {} };
const KNOWN_KEYS: ReadonlySet<string> = new Set(CONFIG_KEYS);

/** Reads one config file into typed values; a missing file is an empty layer. */
export function readLayer(file: string, env: Env): Resolved {
  const read = readConfigFile(file, env);
  return read.problems.length === 0 ? { ok: true, layer: read.layer } : { ok: false, problems: read.problems };
}

/** sha256 of a config file's bytes, hex; a missing file hashes as an empty one. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export const NO_FILE_HASH = contentHash(new Uint8Array());

/**
 * A config file's good values, every problem it has (all at once: its syntax, unknown keys,
 * each bad value with what the key allows, and the bands it sets), and the hash of the very
 * bytes it was read from.
 */
export function readConfigFile(file: string, env: Env): { layer: Layer; hash: string; problems: string[] } {
  if (!existsSync(file)) return { layer: EMPTY_LAYER, hash: NO_FILE_HASH, problems: [] };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return { layer: EMPTY_LAYER, hash: NO_FILE_HASH, problems: [`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); fix its permissions`] };
  }
  const parsed = parseConfigFile(bytes.toString('utf8'), env);
  const problems = parsed.errors.map((e) => ({ line: e.line, text: `${file}:${e.line}: ${e.key ? `${e.key}: ` : ''}${e.reason}` }));
  const layer: Layer = { values: {}, sources: {} };
  for (const [key, { value, line, fromEnv }] of parsed.assignments) {
    const where = `${file}:${line}`;
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ line, text: `${where}: ${key}: unknown key; known keys are ${CONFIG_KEYS.join(', ')}` });
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
  if (problems.length === 0) return { ok: true, effective: { config: configSchema.parse(values), sources } };
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

/** A project's config file as last read well: its values and the hash of its bytes. */
type ProjectFile = { layer: Layer; hash: string };

const NO_FILE: ProjectFile = { layer: EMPTY_LAYER, hash: NO_FILE_HASH };

/** The approval on record for a project's config file, if any. */
export type Approvals = (projectDir: string) => ApprovedConfig | undefined;

/** A project file whose weakening values wait for the user's `recap config allow`. */
export type PendingConfig = {
  file: string;
  hash: string;
  /** The keys kept at the value in force, and the value the file asks for. */
  held: KeyChange[];
  /** No approval on record yet: a file from before approvals, or a new one. */
  neverApproved: boolean;
};

/** What `recap config allow` approves: the file as read now, and what it changes. */
export type Approval = { file: string; hash: string; values: Record<string, unknown>; changes: KeyChange[] };

export const ALLOW_COMMAND = 'recap config allow';

export class ConfigService {
  private userLayer: Layer = EMPTY_LAYER;
  private readonly projectFiles = new Map<string, ProjectFile>();
  private readonly problemsByFile = new Map<string, string[]>();
  /** The configuration in force per project (undefined: the user's), combined once: every check asks for it. */
  private readonly combined = new Map<string | undefined, Effective>();
  private readonly pendingByProject = new Map<string, PendingConfig>();

  constructor(
    readonly userFile: string,
    private readonly env: Env,
    /** The user-wide values last recorded in the log: the last good configuration at start. */
    recorded?: Record<string, unknown>,
    private readonly approvals: Approvals = () => undefined,
  ) {
    if (recorded) {
      const parsed = configSchema.safeParse(recorded);
      const sources = Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'the last good configuration on record']));
      if (parsed.success) this.userLayer = { values: parsed.data, sources };
    }
    this.loadUser();
  }

  /** Every problem of the files as they are now, one line each. */
  get problems(): string[] {
    return [...this.problemsByFile.values()].flat();
  }

  user(): Effective {
    return this.memo(undefined, () => {
      const combined = combine([this.userLayer]);
      return combined.ok ? combined.effective : { config: DEFAULT_CONFIG, sources: {} };
    });
  }

  forProject(projectDir: string | undefined): Effective {
    if (projectDir === undefined) return this.user();
    if (!this.projectFiles.has(projectDir)) this.loadProject(projectDir);
    return this.memo(projectDir, () => this.guarded(projectDir));
  }

  /** The project's change that waits for approval, if one does. */
  pending(projectDir: string): PendingConfig | undefined {
    this.forProject(projectDir);
    return this.pendingByProject.get(projectDir);
  }

  /**
   * The project file applies whole when its hash is the approved one (no file, before any
   * approval) and it reads as it did then (a "${KEY:-default}" takes the daemon's
   * environment, which a daemon started elsewhere may not share). Otherwise each key takes
   * the file's value only where it is stricter than the last approved file's (the user's
   * own configuration, before any approval), and keeps that one where it is not.
   */
  private guarded(projectDir: string): Effective {
    this.pendingByProject.delete(projectDir);
    const file = projectConfigPath(projectDir);
    const current = this.projectFiles.get(projectDir) ?? NO_FILE;
    const approval = this.approvals(projectDir);
    const wanted = combine([this.userLayer, current.layer]);
    if (!wanted.ok) return this.user();
    if (current.hash === (approval?.hash ?? NO_FILE_HASH) && (approval === undefined || sameValues(approval.values, current.layer.values))) {
      return wanted.effective;
    }
    const approvedLayer = approval ? { values: approval.values, sources: sourcesOf(approval.values, `${file} as approved (sha256 ${approval.hash.slice(0, 12)})`) } : EMPTY_LAYER;
    const base = combine([this.userLayer, approvedLayer]);
    const inForce = base.ok ? base.effective : this.user();
    const merged = configSchema.safeParse(guardedValues(inForce.config, wanted.effective.config).values);
    // Stricter ends of a band that cross (a floor above the old ceiling) keep the approved band.
    const config = merged.success ? merged.data : inForce.config;
    const held = configChanges(config, wanted.effective.config);
    const sources: Record<string, string> = {};
    for (const key of Object.keys(config)) {
      const taken = !held.some((h) => h.key === key);
      const asked = JSON.stringify(wanted.effective.config[key as keyof typeof config]);
      sources[key] = taken ? (wanted.effective.sources[key] ?? 'default') : `${inForce.sources[key] ?? 'default'} (held: ${file} sets ${asked}, waiting for ${ALLOW_COMMAND})`;
    }
    if (held.length > 0) this.pendingByProject.set(projectDir, { file, hash: current.hash, held, neverApproved: approval === undefined });
    return { config, sources };
  }

  /**
   * Reads the project's file as it is now for `recap config allow`: what approving it would
   * change against what is in force. `expectedHash` refuses a file changed since it was shown.
   */
  approval(projectDir: string, expectedHash?: string): { ok: true; approval: Approval } | { ok: false; problems: string[] } {
    const file = projectConfigPath(projectDir);
    const before = this.forProject(projectDir).config;
    this.loadProject(projectDir);
    const problems = this.problemsByFile.get(file);
    if (problems) return { ok: false, problems: [...problems, `correct ${file}, then run ${ALLOW_COMMAND} again`] };
    const current = this.projectFiles.get(projectDir) ?? NO_FILE;
    if (expectedHash !== undefined && expectedHash !== current.hash) {
      return { ok: false, problems: [`${file} changed since its changes were shown to you; run ${ALLOW_COMMAND} again and read them anew`] };
    }
    const wanted = combine([this.userLayer, current.layer]);
    if (!wanted.ok) return { ok: false, problems: wanted.problems };
    return { ok: true, approval: { file, hash: current.hash, values: current.layer.values, changes: configChanges(before, wanted.effective.config) } };
  }

  /** An approval was recorded: each project's configuration is worked out again. */
  approvalsChanged(): void {
    this.combined.clear();
  }

  private memo(scope: string | undefined, make: () => Effective): Effective {
    let effective = this.combined.get(scope);
    if (effective === undefined) {
      effective = make();
      this.combined.set(scope, effective);
    }
    return effective;
  }

  /** Re-reads every file (SIGHUP); returns the problems found. */
  reload(): string[] {
    this.loadUser();
    for (const projectDir of this.projectFiles.keys()) this.loadProject(projectDir);
    return this.problems;
  }

  private loadUser(): void {
    const read = readConfigFile(this.userFile, this.env);
    this.settle(this.userFile, read, [read.layer], (layer) => {
      this.userLayer = layer;
    });
  }

  private loadProject(projectDir: string): void {
    const file = projectConfigPath(projectDir);
    const read = readConfigFile(file, this.env);
    if (!this.projectFiles.has(projectDir)) this.projectFiles.set(projectDir, NO_FILE);
    this.settle(file, read, [this.userLayer, read.layer], (layer) => this.projectFiles.set(projectDir, { layer, hash: read.hash }));
  }

  /** Keeps a file's layer when it has no problem at all, else its problems (every one, file's and bands'). */
  private settle(file: string, read: { layer: Layer; problems: string[] }, layers: Layer[], keep: (layer: Layer) => void): void {
    // A file read again may change any project's configuration (the user's underlies them all).
    this.combined.clear();
    const combined = combine(layers);
    const problems = [...read.problems, ...(combined.ok ? [] : combined.problems)];
    if (problems.length === 0) {
      keep(read.layer);
      this.problemsByFile.delete(file);
    } else {
      this.problemsByFile.set(file, problems);
    }
  }
}

function sourcesOf(values: Record<string, unknown>, source: string): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((key) => [key, source]));
}

/** Whether two configurations hold the same values. */
export function sameValues(a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean {
  return a !== undefined && (a === b || canonicalOf(a) === canonicalOf(b));
}

/** Configurations are never changed in place, so each one's canonical form is made once. */
const canonicalForms = new WeakMap<Record<string, unknown>, string>();

function canonicalOf(config: Record<string, unknown>): string {
  let form = canonicalForms.get(config);
  if (form === undefined) {
    form = canonicalJson(config);
    canonicalForms.set(config, form);
  }
  return form;
}
