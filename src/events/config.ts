// The configuration keys, their types, ranges and defaults: one schema, used to validate
// config files at the boundary and to type the configuration everywhere inside.
import { z } from 'zod';

const positiveInt = z.number().int().min(1);
const words = z.array(z.string().min(1));

export const DEFAULT_SECTIONS = [
  'User Requests',
  'Questions & Decisions',
  'Design Choices',
  'Corrections & Feedback',
  'Current State',
];

export const configSchema = z
  .object({
    TOKEN_THRESHOLD: positiveInt.default(500),
    SUMMARY_MIN_TOKENS: positiveInt.default(200),
    SUMMARY_MAX_TOKENS: positiveInt.default(1000),
    MIN_TOKENS_PER_SECTION: z.number().int().min(0).default(50),
    REQUIRED_SECTIONS: words.min(1).default(DEFAULT_SECTIONS),
    BYPASS_PREFIXES: words.default([]),
    COUNT_KINDS: z.array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'kinds are lower-case words')).default(['prompt', 'qa']),
    TOKEN_ENCODING: z.enum(['o200k_base', 'cl100k_base', 'words']).default('o200k_base'),
    TOKEN_WORD_RATIO: z.number().positive().max(100).default(1.3),
    JOB_SCOPE: z.enum(['project', 'session']).default('project'),
    ON_DAEMON_DOWN: z.enum(['open', 'closed']).default('open'),
  })
  .strict()
  .refine((c) => c.SUMMARY_MIN_TOKENS <= c.SUMMARY_MAX_TOKENS, {
    message: 'SUMMARY_MIN_TOKENS must not exceed SUMMARY_MAX_TOKENS',
    path: ['SUMMARY_MIN_TOKENS'],
  });

export type Config = z.infer<typeof configSchema>;
export type ConfigKey = keyof Config;

export const CONFIG_KEYS = Object.keys(configSchema.shape) as ConfigKey[];

/** Keys whose values are lists (bash arrays in config.conf). */
export const LIST_KEYS: ReadonlySet<string> = new Set(['REQUIRED_SECTIONS', 'BYPASS_PREFIXES', 'COUNT_KINDS']);
/** Keys whose values are numbers. */
export const NUMBER_KEYS: ReadonlySet<string> = new Set([
  'TOKEN_THRESHOLD',
  'SUMMARY_MIN_TOKENS',
  'SUMMARY_MAX_TOKENS',
  'MIN_TOKENS_PER_SECTION',
  'TOKEN_WORD_RATIO',
]);

export const DEFAULT_CONFIG: Config = configSchema.parse({});
