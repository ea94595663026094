// The configuration keys, their types, ranges and defaults: one schema, used to validate
// config files at the boundary and to type the configuration everywhere inside.
import { z } from 'zod';

const positiveInt = z.number().int().min(1);
const count = z.number().int().min(0);
const words = z.array(z.string().min(1));

export const DEFAULT_SECTIONS = ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State'];

/** The templates PROFILE chooses from; REQUIRED_SECTIONS, when set, overrides them. */
export const PROFILES = {
  default: DEFAULT_SECTIONS,
  handoff: ['Completed Tasks', 'Active Task', 'Key Decisions', 'User Directives', 'Current Work'],
  progress: ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context'],
  research: ['Sources Cited', 'Hypotheses Tested', 'Open Questions'],
  consulting: ['Client Goals', 'Constraints Surfaced', 'Action Items'],
  legal: ['Statutes Referenced', 'Precedents Reviewed', 'Open Conflicts'],
} as const satisfies Record<string, readonly string[]>;

const fields = {
  TOKEN_THRESHOLD: positiveInt.default(500),
  SUMMARY_MIN_TOKENS: positiveInt.default(200),
  SUMMARY_MAX_TOKENS: positiveInt.default(1000),
  MIN_TOKENS_PER_SECTION: count.default(50),
  /** 0: no cap. */
  SECTION_MAX_TOKENS: count.default(0),
  /** on: a summary must name some of the concrete things (paths, identifiers, names, numbers) its window contained. */
  SUMMARY_GROUNDING: z.enum(['on', 'off']).default('on'),
  PROFILE: z.enum(Object.keys(PROFILES) as [keyof typeof PROFILES, ...(keyof typeof PROFILES)[]]).default('default'),
  REQUIRED_SECTIONS: words.min(1).optional(),
  BYPASS_PREFIXES: words.default([]),
  COUNT_KINDS: z.array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'kinds are lower-case words')).default(['prompt', 'qa']),
  TOKEN_ENCODING: z.enum(['o200k_base', 'cl100k_base', 'words']).default('o200k_base'),
  TOKEN_WORD_RATIO: z.number().positive().max(100).default(1.3),
  JOB_SCOPE: z.enum(['project', 'session']).default('project'),
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
};

export const configSchema = z
  .object(fields)
  .strict()
  .refine((c) => c.SUMMARY_MIN_TOKENS <= c.SUMMARY_MAX_TOKENS, {
    message: 'SUMMARY_MIN_TOKENS must not exceed SUMMARY_MAX_TOKENS',
    path: ['SUMMARY_MIN_TOKENS'],
  })
  .refine((c) => c.ROLLUP_MIN_TOKENS <= c.ROLLUP_MAX_TOKENS, {
    message: 'ROLLUP_MIN_TOKENS must not exceed ROLLUP_MAX_TOKENS',
    path: ['ROLLUP_MIN_TOKENS'],
  })
  .transform((c) => ({ ...c, REQUIRED_SECTIONS: c.REQUIRED_SECTIONS ?? [...PROFILES[c.PROFILE]] }));

export type Config = z.output<typeof configSchema>;
export type ConfigKey = keyof typeof fields;

export const CONFIG_KEYS = Object.keys(fields) as ConfigKey[];

/** Keys whose values are lists (bash arrays in config.conf). */
export const LIST_KEYS: ReadonlySet<string> = new Set(['REQUIRED_SECTIONS', 'BYPASS_PREFIXES', 'COUNT_KINDS']);
/** Keys whose values are numbers. */
export const NUMBER_KEYS: ReadonlySet<string> = new Set(
  CONFIG_KEYS.filter((k) => !LIST_KEYS.has(k) && !['PROFILE', 'TOKEN_ENCODING', 'JOB_SCOPE', 'ON_DAEMON_DOWN', 'SUMMARY_GROUNDING'].includes(k)),
);

export const DEFAULT_CONFIG: Config = configSchema.parse({});
