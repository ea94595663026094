// The socket protocol's requests, validated once at the boundary with zod.
import { z } from 'zod';

const job = z
  .string()
  .min(1, 'job is empty')
  .max(256, 'job is longer than 256 characters')
  .regex(/^[^\x00-\x1f\x7f]+$/, 'job contains control characters');
const optionalText = z.string().max(256).optional();
const project = z.string().startsWith('/', 'project must be an absolute path').max(4096).optional();

export const requestSchemas = {
  ping: z.object({}),
  record: z.object({
    job,
    kind: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'kind is a lower-case word such as prompt or qa'),
    text: z.string(),
    session: optionalText,
    agent: optionalText,
    contextTokens: z.number().int().min(0).optional(),
    project,
  }),
  check: z.object({
    job,
    tool: z.string().min(1).max(256),
    input: z.unknown().optional(),
    session: optionalText,
    agent: optionalText,
    contextTokens: z.number().int().min(0).optional(),
    cwd: z.string().max(4096).optional(),
    project,
  }),
  submit: z.object({ job, text: z.string(), topic: z.string().regex(/^[\w.-]{1,64}$/, 'a topic is a word of letters, digits, dots and dashes').optional(), project }),
  trip: z.object({ job, note: z.string().max(1000).optional(), project }),
  report: z.object({ job: job.optional(), since: z.number().optional() }),
  status: z.object({ job, project }),
  context: z.object({ job, project }),
  chain: z.object({ job, project }),
  hook: z.object({ agent: z.enum(['claude'], 'agent must be claude'), payload: z.unknown() }),
  http: z.object({}),
  events: z.object({
    fromSeq: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(10_000).default(1000),
    job: job.optional(),
    types: z.array(z.string().max(64)).max(32).optional(),
    since: z.number().optional(),
    until: z.number().optional(),
    raw: z.boolean().default(false),
  }),
  replay: z.object({ job: job.optional(), atSeq: z.number().int().min(0).optional(), atTime: z.number().optional() }).refine(
    (r) => (r.atSeq === undefined) !== (r.atTime === undefined),
    'give exactly one of atSeq and atTime',
  ),
  verify: z.object({}),
  stats: z.object({}),
} as const;

export type Op = keyof typeof requestSchemas;
export const OPS = Object.keys(requestSchemas) as Op[];
export type RequestOf<O extends Op> = z.infer<(typeof requestSchemas)[O]>;

export const envelopeSchema = z.object({
  id: z.union([z.string().max(128), z.number()]),
  op: z.string().max(64),
});

export type ErrorCode =
  | 'bad_request'
  | 'unknown_op'
  | 'refused'
  | 'invalid_frame'
  | 'frame_too_large'
  | 'storage'
  | 'shutting_down'
  | 'internal';

export type Response =
  | { id: string | number | null; result: unknown }
  | { id: string | number | null; error: { code: ErrorCode; message: string } };

/** Sent before the answer of a long op, as often as it likes: how far it has got. */
export type ProgressFrame = { id: string | number; progress: { done: number; total?: number } };

export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A zod error as one line per problem: "field: what is wrong". */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
