// The configuration in force: defaults, then the user file, then a job's project file.
// A file that fails to parse or validate is reported (file, line, key, reason) and the
// last good configuration stays in force.
import { existsSync, readFileSync } from 'node:fs';
import { projectConfigPath } from '../common/paths.js';
import { CONFIG_KEYS, configSchema, DEFAULT_CONFIG, LIST_KEYS, NUMBER_KEYS, type Config } from '../events/config.js';
import { canonicalJson } from '../events/canonical.js';
import { parseConfigFile } from '../common/configFile.js';

type Env = Record<string, string | undefined>;
type Layer = { values: Record<string, unknown>; sources: Record<string, string> };
export type Effective = { config: Config; sources: Record<string, string> };
type Resolved = { ok: true; layer: Layer } | { ok: false; problems: string[] };

const EMPTY_LAYER: Layer = { values: {}, sources: {} };
const KNOWN_KEYS: ReadonlySet<string> = new Set(CONFIG_KEYS);

/** Reads one config file into typed values; a missing file is an empty layer. */
export function readLayer(file: string, env: Env): Resolved {
  if (!existsSync(file)) return { ok: true, layer: EMPTY_LAYER };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); fix its permissions`] };
  }
  const parsed = parseConfigFile(text, env);
  const problems = parsed.errors.map((e) => `${file}:${e.line}: ${e.key ? `${e.key}: ` : ''}${e.reason}`);
  const layer: Layer = { values: {}, sources: {} };
  for (const [key, { value, line, fromEnv }] of parsed.assignments) {
    const where = `${file}:${line}`;
    if (!KNOWN_KEYS.has(key)) {
      problems.push(`${where}: ${key}: unknown key; known keys are ${CONFIG_KEYS.join(', ')}`);
      continue;
    }
    const typed = typedValue(key, value);
    if (typeof typed === 'object' && typed !== null && 'problem' in typed) {
      problems.push(`${where}: ${key}: ${typed.problem}`);
      continue;
    }
    layer.values[key] = typed;
    layer.sources[key] = fromEnv ? `env ${key} via ${where}` : where;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, layer };
}

function typedValue(key: string, value: string | string[]): unknown {
  if (LIST_KEYS.has(key)) return Array.isArray(value) ? value : value === '' ? [] : [value];
  if (Array.isArray(value)) return { problem: 'takes one value, not a list' };
  if (NUMBER_KEYS.has(key)) {
    return /^-?\d+(?:\.\d+)?$/.test(value) ? Number(value) : { problem: `must be a number, got ${JSON.stringify(value)}` };
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
  const result = configSchema.safeParse(values);
  if (result.success) return { ok: true, effective: { config: result.data, sources } };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => {
      const key = blamedKey(String(issue.path[0] ?? ''), sources);
      return `${sources[key] ?? 'config'}: ${key}: ${issue.message}`;
    }),
  };
}

const BANDS = [
  ['SUMMARY_MIN_TOKENS', 'SUMMARY_MAX_TOKENS'],
  ['ROLLUP_MIN_TOKENS', 'ROLLUP_MAX_TOKENS'],
];

/** A problem between a band's two ends is blamed on the end a file set. */
function blamedKey(key: string, sources: Record<string, string>): string {
  const band = BANDS.find((b) => b.includes(key));
  if (!band || sources[key] !== 'default') return key;
  return band.find((k) => sources[k] !== 'default') ?? key;
}

export class ConfigService {
  private userLayer: Layer = EMPTY_LAYER;
  private readonly projectLayers = new Map<string, Layer>();
  private readonly problemsByFile = new Map<string, string[]>();
  /** The configuration in force per project (undefined: the user's), combined once: every check asks for it. */
  private readonly combined = new Map<string | undefined, Effective>();

  constructor(
    readonly userFile: string,
    private readonly env: Env,
    /** The user-wide values last recorded in the log: the last good configuration at start. */
    recorded?: Record<string, unknown>,
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
    if (!this.projectLayers.has(projectDir)) this.loadProject(projectDir);
    return this.memo(projectDir, () => {
      const combined = combine([this.userLayer, this.projectLayers.get(projectDir) ?? EMPTY_LAYER]);
      return combined.ok ? combined.effective : this.user();
    });
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
    for (const projectDir of this.projectLayers.keys()) this.loadProject(projectDir);
    return this.problems;
  }

  private loadUser(): void {
    const read = readLayer(this.userFile, this.env);
    const combined = read.ok ? combine([read.layer]) : read;
    this.settle(this.userFile, combined.ok && read.ok ? read.layer : undefined, combined.ok ? [] : combined.problems, (layer) => {
      this.userLayer = layer;
    });
  }

  private loadProject(projectDir: string): void {
    const file = projectConfigPath(projectDir);
    const read = readLayer(file, this.env);
    const combined = read.ok ? combine([this.userLayer, read.layer]) : read;
    if (!this.projectLayers.has(projectDir)) this.projectLayers.set(projectDir, EMPTY_LAYER);
    this.settle(file, combined.ok && read.ok ? read.layer : undefined, combined.ok ? [] : combined.problems, (layer) => {
      this.projectLayers.set(projectDir, layer);
    });
  }

  private settle(file: string, layer: Layer | undefined, problems: string[], keep: (layer: Layer) => void): void {
    // A file read again may change any project's configuration (the user's underlies them all).
    this.combined.clear();
    if (layer) {
      keep(layer);
      this.problemsByFile.delete(file);
    } else {
      this.problemsByFile.set(file, problems);
    }
  }
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
