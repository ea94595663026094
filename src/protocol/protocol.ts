// The socket protocol's requests, validated once at the boundary with zod; the ops on every
// tool call have a hand-written check of the same rules, with zod to say what is wrong.
import { z } from 'zod';
import type { HookAnswer } from '../agents/facts.js';
import { AGENT_NAMES, isAgentName, type AgentName } from '../agents/known.js';
import { DEFAULT_AGENT } from '../agents/cliFacts.js';
import type { Config } from '../events/config.js';
import { EVENT_TYPES, type ChainOrigin, type EventType, type GistAuthor, type SummaryAccepted } from '../events/events.js';
import type { CheckAnswer, GateStatus } from '../events/gate.js';
import type { SubmitAnswer } from '../events/summaries.js';
import type { AmendAnswer, RedactAnswer } from '../events/memoryEdits.js';
import type { KeyChange } from '../events/configPolicy.js';
import type { JobQuality } from '../events/qualitySignals.js';
import type { Allowed, DecisionLog, EventLine, IndexLine, JobReport, JobRow, PastStatus, PendingConfig, SearchHit, SessionReport, SyncReport, Verification } from './answers.js';
import type { CodeVerdict } from '../events/codeManifest.js';
import { PROMPT_ID } from '../common/promptSpool.js';
import { describeIssues } from '../common/zodIssues.js';
import { MAX_TRIP_NOTE } from './limits.js';

// Control characters are kept out of job names: matching them is the point.
const JOB_CHARACTERS = /^[^\x00-\x1f\x7f]+$/;
const job = z.string().min(1, 'job is empty').max(256, 'job is longer than 256 characters').regex(JOB_CHARACTERS, 'job contains control characters');
const optionalText = z.string().max(256).optional();
const project = z.string().startsWith('/', 'project must be an absolute path').max(4096).optional();
/**
 * How the daemon finds a request's job when `job` is not given: the agent session
 * (CLAUDE_CODE_SESSION_ID) keeps the job it was first seen with; else the folder's project.
 */
const session = optionalText;
const cwd = z.string().startsWith('/', 'cwd must be an absolute path').max(4096).optional();
const where = { job: job.optional(), session, cwd, project };
const eventTypes = z.array(z.enum(EVENT_TYPES as [EventType, ...EventType[]], `types are: ${EVENT_TYPES.join(', ')}`)).max(32);

/** The most words a search looks up. */
export const MAX_QUERY_WORDS = 32;

export const requestSchemas = {
  ping: z.object({}),
  record: z.object({
    ...where,
    kind: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'kind is a lower-case word such as prompt or qa'),
    text: z.string(),
    agent: optionalText,
    contextTokens: z.number().int().min(0).optional(),
    contextWindow: z.number().int().min(1).optional(),
  }),
  check: z.object({
    job: job.optional(),
    tool: z.string().min(1).max(256),
    input: z.unknown().optional(),
    /** Whose name for the tool: the agent's tool names are its own (Bash, run_shell_command). */
    from: z.enum(AGENT_NAMES as [AgentName, ...AgentName[]], `from must be one of: ${AGENT_NAMES.join(', ')}`).default(DEFAULT_AGENT),
    session: optionalText,
    agent: optionalText,
    contextTokens: z.number().int().min(0).optional(),
    /** The window of the model in use, when the agent tells it: used unless CONTEXT_WINDOW is set. */
    contextWindow: z.number().int().min(1).optional(),
    cwd: z.string().max(4096).optional(),
    project,
  }),
  submit: z.object({
    ...where,
    text: z.string(),
    topic: z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'a topic is a word of letters, digits, dots and dashes')
      .optional(),
  }),
  trip: z.object({ ...where, note: z.string().max(MAX_TRIP_NOTE).optional(), cancel: z.boolean().default(false) }),
  /** `recap pause`: until when (ms since the epoch); `recap resume` ends it. */
  pause: z.object({ ...where, until: z.number().int().positive() }),
  resume: z.object(where),
  /** `recap report`; with `session`, that session's report alone; with `quality`, the memory quality signals instead (qualitySignals.ts). */
  report: z.object({ job: job.optional(), since: z.number().optional(), session: optionalText, quality: z.boolean().optional() }),
  status: z.object(where),
  /** `recap statusline`: the job's gate, and the window of the session's model, which the agent tells only its status line. */
  statusline: z.object({ ...where, contextWindow: z.number().int().min(1).optional() }),
  context: z.object(where),
  chain: z.object(where),
  /** `recap show N`: summary #N of the job whole, N its sequence number as `recap chain` lists it. */
  show: z.object({
    ...where,
    seq: z.number().int().min(1, "seq is a summary's sequence number, 1 or more").max(Number.MAX_SAFE_INTEGER),
    /** The text the summary was accepted with, not its newest amendment's. */
    original: z.boolean().default(false),
  }),
  /** `recap amend N`: the user's corrected text for summary #N of the job. */
  amend: z.object({ ...where, seq: z.number().int().min(1, "seq is a summary's sequence number, 1 or more").max(Number.MAX_SAFE_INTEGER), text: z.string() }),
  /** `recap redact N`: remove the text of summary or interaction #N of the job, from the log too. */
  redact: z.object({
    ...where,
    seq: z.number().int().min(1, "seq is an event's sequence number, 1 or more").max(Number.MAX_SAFE_INTEGER),
    reason: z.string().max(1000, 'the reason is longer than 1,000 characters').optional(),
  }),
  /**
   * `recap search QUERY`: ranked full-text search over the summaries of the job (or every
   * job's: `allJobs`), by section, gist and the files they name; `since` in ms since the epoch.
   */
  search: z.object({
    ...where,
    query: z
      .string()
      .trim()
      .min(1, 'the query is empty: give the words to look for')
      .max(1000, 'the query is longer than 1,000 characters')
      // Each word is looked up on its own (with its longer forms): a bound on the daemon's time.
      .refine((q) => q.split(/\s+/).length <= MAX_QUERY_WORDS, `the query has more than ${MAX_QUERY_WORDS} words: give the few that matter`),
    allJobs: z.boolean().default(false),
    topic: z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'a topic is a word of letters, digits, dots and dashes')
      .optional(),
    since: z.number().optional(),
    limit: z.number().int().min(1).max(100).default(10),
  }),
  /** The job's summaries around entry `seq`, or around the moment `time` (ms), else the newest: index lines, oldest first. */
  timeline: z
    .object({
      ...where,
      seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
      time: z.number().optional(),
      before: z.number().int().min(0).max(50).default(3),
      after: z.number().int().min(0).max(50).default(3),
    })
    .refine((r) => r.seq === undefined || r.time === undefined, 'give at most one of seq and time'),
  /** `recap decisions`: the job's decision log, newest first. */
  decisions: z.object({ ...where, limit: z.number().int().min(1).max(10_000).optional() }),
  /** `recap sync`: push this machine's summaries of the job's repository and fetch the others' (`last`: only what the last sync did). */
  sync: z.object({ ...where, push: z.boolean().default(true), fetch: z.boolean().default(true), last: z.boolean().default(false) }),
  hook: z.object({
    agent: z.enum(AGENT_NAMES as [AgentName, ...AgentName[]], `agent must be one of: ${AGENT_NAMES.join(', ')}`),
    payload: z.unknown(),
    /** The user switched recap off for the agent's shell (RECAP_DISABLE=1, checked by recap-hook). */
    off: z.boolean().optional(),
    /** recap-hook's id of a prompt it keeps in its spool if the daemon does not answer: recorded once either way. */
    promptId: z.string().regex(PROMPT_ID, 'promptId is not an id recap-hook makes').optional(),
    /** When that prompt came (ms since the epoch): a request the daemon reads late, after a stop, is recorded at that time. */
    promptAt: z.number().int().positive().optional(),
  }),
  http: z.object({}),
  /** `recap ui`: the audit page's URL, its server started if it is not running. */
  ui: z.object({}),
  events: z.object({
    fromSeq: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(10_000).default(1000),
    job: job.optional(),
    types: eventTypes.optional(),
    since: z.number().optional(),
    until: z.number().optional(),
    raw: z.boolean().default(false),
    /** A head, a newline, then the events' JSON Lines, which the client writes out unscanned (eventsAnswer.ts); with `stored`, the events as stored, in records the client makes the lines of (storedRecords.ts, `recap export`). */
    lines: z.boolean().default(false),
    stored: z.boolean().default(false),
    /** `recap log -f`: when nothing matches yet, wait up to this long for new events before answering. */
    wait: z.number().int().min(0).max(60_000).default(0),
  }),
  /** `recap jobs`: every job the log knows. */
  jobs: z.object({}),
  replay: z
    .object({ job: job.optional(), atSeq: z.number().int().min(0).optional(), atTime: z.number().optional() })
    .refine((r) => (r.atSeq === undefined) !== (r.atTime === undefined), 'give exactly one of atSeq and atTime'),
  verify: z.object({ job: job.optional() }),
  /** `settle`: collect the garbage first, when the daemon runs with node's --expose-gc (benchmarks measure the heap so). */
  stats: z.object({ settle: z.boolean().optional() }),
  /** `recap config show` (allow: false) and `recap config allow`: a project's configuration and its approval; `user`: the user's file's. */
  config: z.object({
    ...where,
    allow: z.boolean().default(false),
    user: z.boolean().default(false),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'hash is a sha256 in hex')
      .optional(),
  }),
  /** The daemon itself: `recap status --daemon`, `recap reload`, `recap stop` (and restart). */
  daemon: z.object({}),
  reload: z.object({}),
  stop: z.object({}),
} as const;

export type Op = keyof typeof requestSchemas;

/**
 * The user's commands: they pause, open or reconfigure the gate, or stop recap. The daemon
 * runs them only for a caller the kernel shows to be the user's (src/events/caller.ts), or,
 * where the system cannot tell, one confirmed at the user's terminal (handler.ts); the
 * agent's side (hook, check, record, submit and the reads) stays open to any caller.
 */
export function userCommand(op: Op, request: unknown): string | undefined {
  switch (op) {
    case 'pause':
    case 'resume':
    case 'reload':
    case 'stop':
    case 'amend':
    case 'redact':
      return op;
    case 'trip':
      return (request as RequestOf<'trip'>).cancel ? 'trip --cancel' : 'trip';
    case 'config':
      return (request as RequestOf<'config'>).allow ? 'config allow' : undefined;
    default:
      return undefined;
  }
}
export const OPS = Object.keys(requestSchemas) as Op[];
export type RequestOf<O extends Op> = z.infer<(typeof requestSchemas)[O]>;
/** What a client sends for an op: its fields as the schema takes them, before its defaults are filled in. */
export type RequestFields<O extends Op> = z.input<(typeof requestSchemas)[O]>;

/** A job's gate as `status` (and `record`, `trip`) tell it. */
export type StatusAnswer = GateStatus & { configProblems?: string[]; configPending?: PendingConfig; userConfigPending?: PendingConfig };

/** What the user did to a summary's text: the amendment in force (its number and time), the redaction (when, why). */
export type EntryEdits = { amendment?: { seq: number; time: number }; redaction?: { time: number; reason?: string } };

/** Set on another machine's entry (`recap sync`): whose chain it is of, and its number in that machine's log. */
export type EntryOrigin = { origin?: ChainOrigin; originSeq?: number };

/** What each op answers, beside what it is asked (requestSchemas). */
export type Responses = {
  ping: { version: string };
  record: { seq: number | undefined; tokens: number; gate: GateStatus | undefined; uncounted?: string };
  check: CheckAnswer;
  submit: SubmitAnswer;
  /** `notice`: the job named has no events (status, context and chain answer all the same). */
  status: StatusAnswer & { notice?: string };
  statusline: StatusAnswer;
  context: { text: string; tripped: boolean; summaries: number; notice?: string };
  /** Each summary with its text in force (EntryEdits: its amendment, its redaction). */
  chain: { entries: (SummaryAccepted['data'] & { seq: number } & EntryEdits & EntryOrigin)[]; notice?: string };
  /**
   * `entry` as the log holds it (its hash checks) unless an amendment's text is in force: then
   * its text, sections, tokens and files are the amendment's (`amendment` says so; `original`
   * asks for the entry's own). `gist` as written, or derived for a summary written before gists (`gistBy: 'recap'`).
   */
  show: { entry: SummaryAccepted['data'] & { seq: number } & EntryOrigin; gist: string; gistBy: GistAuthor; original?: true } & EntryEdits;
  amend: AmendAnswer;
  redact: RedactAnswer & { seq: number };
  search: { hits: SearchHit[]; notice?: string };
  timeline: { entries: IndexLine[]; notice?: string };
  decisions: DecisionLog & { notice?: string };
  sync: SyncReport;
  hook: HookAnswer;
  http: { url: string; tokenFile: string };
  ui: { url: string };
  events: { events: EventLine[]; next: number | null; lastSeq: number };
  jobs: { jobs: JobRow[] };
  replay: { seq: number; jobs: PastStatus[] };
  verify: Verification;
  trip: { tripped: boolean; already: boolean; gate: GateStatus };
  pause: { until: number; extended: boolean; gate: GateStatus };
  resume: { resumed: boolean; gate: GateStatus };
  stats: { lastSeq: number; syncs: number; memory: NodeJS.MemoryUsage };
  report: { jobs: JobReport[]; sessions: SessionReport[]; session?: SessionReport; quality?: JobQuality[] };
  config:
    | { file: string; userFile: string; values: Config; sources: Record<string, string>; problems: string[]; pending?: PendingConfig; userPending?: PendingConfig }
    | { file: string; hash: string; changes: KeyChange[]; already: boolean };
  daemon: DaemonInfo;
  reload: { file: string; problems: string[]; pending?: PendingConfig };
  stop: { pid: number };
};

/** `recap config show`: the configuration in force, each value's source, and a change that waits for approval (`config` without `allow`). */
export type ConfigShown = Exclude<Responses['config'], Allowed>;

/** `recap status --daemon`: the process, where it listens and keeps its files, how big its log is. */
export type DaemonInfo = {
  pid: number;
  version: string;
  node: string;
  /** When it started, ms since the epoch. */
  started: number;
  socket: string;
  dataDir: string;
  eventLog: { path: string; bytes: number; events: number };
  /** Its own log: a file (started by the CLI), or where it goes instead. */
  daemonLog: { file: string; bytes: number } | { stream: string };
  config: string;
  /** recap's code at start: as `recap install` recorded it, or unverified (no manifest); a changed one does not start. */
  code: Exclude<CodeVerdict, { state: 'changed' }>;
  /** Socket files another process put in place of the daemon's since it started (it put its own back): the last few. */
  takenOver?: { socket: string; time: number }[];
};
export type ResponseOf<O extends Op> = Responses[O];

export const envelopeSchema = z.object({
  id: z.union([z.string().max(128), z.number()]),
  op: z.string().max(64),
});

export type Parsed = { ok: true; id: string | number; op: Op; request: unknown } | { ok: false; id: string | number | null; code: 'bad_request' | 'unknown_op'; message: string };

/** A request's envelope, then its op's fields: the op and its typed fields, or what is wrong. */
export function parseRequest(raw: unknown): Parsed {
  // The hand-written checks first, their values used as they are: no wrapper objects on the way (every check comes here).
  let id: string | number;
  let op: string;
  if (envelopeOk(raw)) ({ id, op } = raw);
  else {
    const envelope = validate(envelopeSchema, raw);
    if (!envelope.ok) {
      const given = (raw as { id?: unknown } | null)?.id;
      const message = `a request needs an id and an op: ${envelope.problems}`;
      return { ok: false, id: typeof given === 'string' || typeof given === 'number' ? given : null, code: 'bad_request', message };
    }
    ({ id, op } = envelope.value);
  }
  if (!Object.hasOwn(requestSchemas, op)) {
    return { ok: false, id, code: 'unknown_op', message: `unknown op ${JSON.stringify(op)}; known ops: ${OPS.join(', ')}` };
  }
  const fast = fastPaths[op as Op]?.(raw as Fields);
  if (fast !== undefined) return { ok: true, id, op: op as Op, request: fast };
  const fields = validate<unknown>(requestSchemas[op as Op] as z.ZodType<unknown>, raw);
  if (!fields.ok) return { ok: false, id, code: 'bad_request', message: `${op}: ${fields.problems}` };
  return { ok: true, id, op: op as Op, request: fields.value };
}

/** zod's judgement of what the hand-written checks did not take: its value, or its problems. */
function validate<T>(schema: z.ZodType<T>, raw: unknown): { ok: true; value: T } | { ok: false; problems: string } {
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error) };
}

type Fields = Record<string, unknown>;

function envelopeOk(raw: unknown): raw is { id: string | number; op: string } {
  if (typeof raw !== 'object' || raw === null) return false;
  const { id, op } = raw as Fields;
  const idOk = (typeof id === 'string' && id.length <= 128) || (typeof id === 'number' && Number.isFinite(id));
  return idOk && typeof op === 'string' && op.length <= 64;
}

/**
 * The requests of `check` and `hook` (every tool call sends one), checked by hand: each
 * accepts only what its schema accepts and gives the same value, without zod's cost on the
 * hot path. Whatever one does not accept goes to zod, which accepts it or says why not.
 */
const fastPaths: { [O in Op]?: (r: Fields) => RequestOf<O> | undefined } = {
  check(r) {
    const { job, tool, input, session, agent, contextTokens, contextWindow, cwd, project, from = DEFAULT_AGENT } = r;
    const valid =
      isAgentName(from) &&
      absentOr(job, isJob(job)) &&
      isText(tool, 1, 256) &&
      absentOr(session, isText(session, 0, 256)) &&
      absentOr(agent, isText(agent, 0, 256)) &&
      absentOr(contextTokens, Number.isSafeInteger(contextTokens) && (contextTokens as number) >= 0) &&
      absentOr(contextWindow, Number.isSafeInteger(contextWindow) && (contextWindow as number) >= 1) &&
      absentOr(cwd, isText(cwd, 0, 4096)) &&
      absentOr(project, isText(project, 0, 4096) && project.startsWith('/'));
    return valid ? ({ job, tool, input, session, agent, contextTokens, contextWindow, cwd, project, from } as RequestOf<'check'>) : undefined;
  },
  hook(r) {
    if (!isAgentName(r.agent) || r.payload === undefined) return undefined;
    const { agent, payload, off, promptId, promptAt } = r;
    if (off === undefined && promptId === undefined && promptAt === undefined) return { agent, payload };
    const valid =
      absentOr(off, typeof off === 'boolean') &&
      absentOr(promptId, typeof promptId === 'string' && PROMPT_ID.test(promptId)) &&
      absentOr(promptAt, Number.isSafeInteger(promptAt) && (promptAt as number) > 0);
    if (!valid) return undefined;
    const request: RequestOf<'hook'> = { agent, payload };
    if (off !== undefined) request.off = off as boolean;
    if (promptId !== undefined) request.promptId = promptId as string;
    if (promptAt !== undefined) request.promptAt = promptAt as number;
    return request;
  },
};

function isText(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}

function isJob(value: unknown): value is string {
  return isText(value, 1, 256) && JOB_CHARACTERS.test(value);
}

/** A field left out (JSON has no undefined) is valid, as its schema's `.optional()` says. */
function absentOr(value: unknown, valid: boolean): boolean {
  return value === undefined || valid;
}

/** What was wrong with a request, or with who sent it. */
type RequestErrorCode = 'bad_request' | 'unknown_op' | 'refused' | 'unconfirmed' | 'invalid_frame' | 'frame_too_large' | 'unknown_job' | 'not_summary';
export type ErrorCode = RequestErrorCode | 'storage' | 'system' | 'shutting_down' | 'busy' | 'internal';

export type Response = { id: string | number | null; result: unknown } | { id: string | number | null; error: { code: ErrorCode; message: string } };

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
