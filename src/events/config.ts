// The configuration keys, their types, ranges and defaults: one schema, used to validate
// config files at the boundary and to type the configuration everywhere inside.
import { z } from 'zod';
import { DEFAULT_RULES, PROFILES, profileRule, profileSource, type ProfileName, type ProfileRules } from './profiles.js';

const positiveInt = z.number().int().min(1);
const count = z.number().int().min(0);
const words = z.array(z.string().min(1));

export { DEFAULT_SECTIONS, PROFILES } from './profiles.js';

/**
 * A key a profile may set: left out, it takes the profile's value (profiles.ts), else the
 * default profile's, which the schema shows as its default (the docs and `allowedValues` read it).
 */
const profiled = <T extends z.ZodType>(schema: T, key: keyof ProfileRules) => schema.optional().meta({ default: DEFAULT_RULES[key] });

const fields = {
  TOKEN_THRESHOLD: positiveInt.default(500),
  SUMMARY_MIN_TOKENS: profiled(positiveInt, 'SUMMARY_MIN_TOKENS'),
  SUMMARY_MAX_TOKENS: profiled(positiveInt, 'SUMMARY_MAX_TOKENS'),
  MIN_TOKENS_PER_SECTION: profiled(count, 'MIN_TOKENS_PER_SECTION'),
  /** 0: no cap. */
  SECTION_MAX_TOKENS: count.default(0),
  /** on: a summary must name some of the concrete things (paths, identifiers, names, numbers) its window contained. */
  SUMMARY_GROUNDING: z.enum(['on', 'off']).default('on'),
  PROFILE: z.enum(Object.keys(PROFILES) as [ProfileName, ...ProfileName[]]).default('default'),
  REQUIRED_SECTIONS: words.min(1).optional(),
  /** Sections that quote the user's prompts word for word (summaryQuotes.ts). */
  VERBATIM_SECTIONS: profiled(words, 'VERBATIM_SECTIONS'),
  BYPASS_PREFIXES: words.default([]),
  COUNT_KINDS: z.array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'kinds are lower-case words')).default(['prompt', 'qa']),
  TOKEN_ENCODING: z.enum(['o200k_base', 'cl100k_base', 'words']).default('o200k_base'),
  TOKEN_WORD_RATIO: z.number().positive().max(100).default(1.3),
  JOB_SCOPE: z.enum(['project', 'session']).default('project'),
  /** marked: recap acts only in projects with a `.recap/` folder (scope.ts). */
  SCOPE: z.enum(['all', 'marked']).default('all'),
  ON_DAEMON_DOWN: z.enum(['open', 'closed']).default('open'),
  /** 0: no rollups. */
  ROLLUP_EVERY: count.default(0),
  ROLLUP_MIN_TOKENS: positiveInt.default(300),
  ROLLUP_MAX_TOKENS: positiveInt.default(1500),
  /** 0: off. */
  TRIGGER_MAX_INTERACTIONS: count.default(0),
  /** 0: off. */
  TRIGGER_CONTEXT_PERCENT: z.number().int().min(0).max(100).default(0),
  // 0: the window of the model in use, as the agent tells it (200,000 when it does not).
  CONTEXT_WINDOW: z.number().int().min(0).default(0),
  CONTEXT_BUDGET: positiveInt.default(2000),
  /** The memory's index of the entries not shown whole (number, date, topic, level, gist); 0: no index. */
  INDEX_BUDGET: count.default(1000),
  /** The most tokens a summary's `read` files may take, at submission and in the memory; 0: the `## Files` section is off. */
  REF_READ_BUDGET: count.default(4000),
  /** agent: each summary begins with a `Gist:` line the agent writes, checked like a section; recap: recap derives it. */
  GIST: z.enum(['agent', 'recap']).default('agent'),
  /** Whose summaries `recap sync` reads from the project's git remote: none (off), the user's own machines, or the whole team's (docs/sync.md). */
  SYNC: z.enum(['off', 'personal', 'team']).default('off'),
  /** The project's git remote that sync pushes to and fetches from. */
  SYNC_REMOTE: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'a git remote name')
    .default('origin'),
  /**
   * How long a session's start waits for the fetch of other machines' summaries, in milliseconds;
   * 0: no fetch at a session's start. At most 2000: the hook launcher gives the daemon 4000 ms to
   * answer, and a longer wait on a remote that never answers lost the session its whole memory
   * (a folder seen for the first time may also take up to 2000 ms of git to know its repository).
   */
  SYNC_START_WAIT: z.number().int().min(0).max(2000).default(1500),
  /** auto: this machine's summaries are pushed after each one accepted; manual: by `recap sync` only. */
  SYNC_PUSH: z.enum(['auto', 'manual']).default('auto'),
};

/** Pairs of keys whose first must not exceed the second. */
export const BANDS = [
  ['SUMMARY_MIN_TOKENS', 'SUMMARY_MAX_TOKENS'],
  ['ROLLUP_MIN_TOKENS', 'ROLLUP_MAX_TOKENS'],
] as const;

export const configSchema = z.object(fields).strict().transform(withProfile);

type Values = z.output<z.ZodObject<typeof fields>>;

/** The keys left out filled in from the profile, then the bands checked (a problem names the keys, and says when the profile set an end). */
function withProfile(c: Values, ctx: z.core.$RefinementCtx<Values>) {
  const profile = c.PROFILE;
  // Every key in the schema's order first (`recap config show` lists them so), then the values.
  const config = {
    ...(KEY_ORDER as object),
    ...c,
    REQUIRED_SECTIONS: c.REQUIRED_SECTIONS ?? [...PROFILES[profile]],
    SUMMARY_MIN_TOKENS: c.SUMMARY_MIN_TOKENS ?? profileRule(profile, 'SUMMARY_MIN_TOKENS'),
    SUMMARY_MAX_TOKENS: c.SUMMARY_MAX_TOKENS ?? profileRule(profile, 'SUMMARY_MAX_TOKENS'),
    MIN_TOKENS_PER_SECTION: c.MIN_TOKENS_PER_SECTION ?? profileRule(profile, 'MIN_TOKENS_PER_SECTION'),
    VERBATIM_SECTIONS: c.VERBATIM_SECTIONS ?? [...profileRule(profile, 'VERBATIM_SECTIONS')],
  };
  const shown = (key: BandKey) => (c[key] === undefined && profileSource(profile, key) ? `${config[key]}, PROFILE=${profile}'s` : String(config[key]));
  for (const [low, high] of BANDS) {
    if (config[low] > config[high]) ctx.issues.push({ code: 'custom', path: [low], input: c, message: `${low} (${shown(low)}) must not exceed ${high} (${shown(high)})` });
  }
  return config;
}

const KEY_ORDER = Object.fromEntries(Object.keys(fields).map((key) => [key, undefined]));
type BandKey = (typeof BANDS)[number][number];

export type Config = z.output<typeof configSchema>;
export type ConfigKey = keyof typeof fields;

export const CONFIG_KEYS = Object.keys(fields) as ConfigKey[];

/** Keys whose values are lists (bash arrays in config.conf). */
export const LIST_KEYS: ReadonlySet<string> = new Set(['REQUIRED_SECTIONS', 'VERBATIM_SECTIONS', 'BYPASS_PREFIXES', 'COUNT_KINDS']);
/** Keys whose values are numbers. */
export const NUMBER_KEYS: ReadonlySet<string> = new Set(
  CONFIG_KEYS.filter(
    (k) => !LIST_KEYS.has(k) && !['PROFILE', 'TOKEN_ENCODING', 'JOB_SCOPE', 'SCOPE', 'ON_DAEMON_DOWN', 'SUMMARY_GROUNDING', 'GIST', 'SYNC', 'SYNC_REMOTE', 'SYNC_PUSH'].includes(k),
  ),
);

export const DEFAULT_CONFIG: Config = configSchema.parse({});

/** A problem with one key's value, in recap's words: what it must be, and what it was. */
export type KeyProblem = { key: string; message: string };

/**
 * Every problem of a set of values at once: each key checked on its own (saying the values
 * it allows), then, when each is good, the bands between them. Unknown keys are the reader's
 * to report (it knows their lines); here they are passed over.
 */
export function configProblems(values: Record<string, unknown>): KeyProblem[] {
  const problems = valueProblems(values);
  if (problems.length > 0) return problems;
  const parsed = configSchema.safeParse(values);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? ''), message: issue.message }));
}

/** Each key's value against what the key allows, on its own. */
export function valueProblems(values: Record<string, unknown>): KeyProblem[] {
  const problems: KeyProblem[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (!Object.hasOwn(fields, key)) continue;
    if (!fields[key as ConfigKey].safeParse(value).success) problems.push({ key, message: `must be ${allowedValues(key as ConfigKey)}; got ${spell(value)}` });
  }
  return problems;
}

const spell = (value: unknown) => (Array.isArray(value) ? `(${value.map((v) => JSON.stringify(v)).join(' ')})` : JSON.stringify(value));

const allowedCache = new Map<ConfigKey, string>();

/** What a key allows, read from its schema (so the words never drift from the rule). */
export function allowedValues(key: ConfigKey): string {
  let text = allowedCache.get(key);
  if (text === undefined) {
    text = describeSchema(z.toJSONSchema(fields[key], { io: 'input', unrepresentable: 'any' }) as JsonSchema);
    allowedCache.set(key, text);
  }
  return text;
}

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  pattern?: string;
  items?: JsonSchema;
};

function describeSchema(schema: JsonSchema): string {
  if (schema.enum) return `one of ${schema.enum.join(', ')}`;
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
    const max = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
    if (schema.exclusiveMinimum !== undefined) return `${kind} above ${schema.exclusiveMinimum}${max !== undefined ? ` and at most ${max}` : ''}`;
    if (schema.minimum !== undefined && max !== undefined) return `${kind} from ${schema.minimum} to ${max}`;
    if (schema.minimum !== undefined) return `${kind}, ${schema.minimum} or more`;
    return kind;
  }
  if (schema.type === 'array') {
    const items = schema.items?.pattern !== undefined ? 'lower-case words' : 'words';
    return `a list of ${items}${schema.minItems === 1 ? ', at least one' : ''}, as KEY=("a" "b")`;
  }
  return 'a word';
}
