// The audit page's data: each /api path answered from the daemon's read-only ops (the same
// answers as `recap jobs`, `replay --at`, `verify`), the projection and the log, and, for
// what the page draws, from the audit index. Nothing here appends an event: the ops that
// settle a job's configuration first (status, chain) are not used.
import type { GistAuthor, StoredEvent } from '../events/events.js';
import type { Caller } from '../events/caller.js';
import { DEFAULT_CONFIG } from '../events/config.js';
import { gistAuthor } from '../events/gist.js';
import { allEntries } from '../events/jobState.js';
import type { Verification } from '../protocol/answers.js';
import { AuditIndex, type IndexBuilt, type JobView } from './auditIndex.js';
import type { SessionReport } from '../events/sessionReport.js';
import type { JobQuality } from '../events/qualitySignals.js';
import { SESSIONS_SHOWN } from './report.js';
import { BUCKETS, type Bucket, type UsageSeries } from './usageIndex.js';
import type { EventStore } from './eventStore.js';
import { pastStatus, type Handler } from './handler.js';
import { USER_SCOPE, type Projection } from './projection.js';
import type { JobRow, PastStatus } from '../protocol/answers.js';
import type { Op, RequestOf, ResponseOf } from '../protocol/protocol.js';

const DEFAULT_WIDTH = 1200;
const MAX_WIDTH = 8000;
const MAX_MOMENTS = 50;
const MOMENT_TEXT = 160;

export type Moment = {
  seq: number;
  time: number;
  type: string;
  kind?: string;
  tokens?: number;
  tool?: string;
  cause?: string;
  reason?: string;
  level?: number;
  text?: string;
  /** Until when a pause holds. */
  until?: number;
  /** Who ran a user's command (pause, resume, a cancelled trip): the process and its ancestry. */
  by?: string;
};

/** A failure with the status the browser gets and a message that says what to do. */
export class UiRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What each /api path answers: the page's side of the contract (ui/src/api.ts). */
export type JobsAnswer = { lastSeq: number; jobs: (JobRow & { threshold: number; denials: number })[] };
export type JobAnswer = JobView & { job: string; lastSeq: number; threshold: number; now: PastStatus };
export type AtAnswer = { seq: number; status: PastStatus | undefined };
export type MomentsAnswer = { events: Moment[]; more: boolean };
/** A summary as the page shows it: as the log holds it, with the gist recap derived where it has none (one written before gists). */
export type ChainSummary = ResponseOf<'chain'>['entries'][number] & { gist: string; gistBy: GistAuthor };
export type ChainAnswer = { total: number; entries: ChainSummary[] };
export type VerifyAnswer = Verification;
export type UsageAnswer = { series: UsageSeries[] };
/** The job's newest sessions, each with its tokens per model, tool calls and denials, and whether it ended. */
export type SessionsAnswer = { sessions: SessionReport[] };
/** The job's memory quality signals per summary and their totals, as `recap report --quality` tells them; null before its first summary. */
export type QualityAnswer = { quality: JobQuality | null };
/** /api/live's `change` event: the log's last sequence number and the jobs that changed. */
export type LiveChange = { lastSeq: number; jobs: string[] };

export class UiApi {
  readonly index: AuditIndex;
  private readonly verified = new Map<string, { seq: number; answer: Promise<VerifyAnswer> }>();
  private verifying: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly handler: Handler,
    private readonly projection: () => Projection,
    private readonly store: EventStore,
    /** Events per chunk of the index kept in the log (chunkEvents). */
    chunkSize: number,
    /** Told of a fault in following the log (the index is built again). */
    failed?: (error: Error) => void,
    built?: (how: IndexBuilt) => void,
  ) {
    this.index = new AuditIndex(store, chunkSize, failed, built);
  }

  ready(): Promise<void> {
    return this.index.ready();
  }

  onChange(listener: (jobs: Set<string>) => void): () => void {
    return this.index.onChange(listener);
  }

  lastSeq(): number {
    return this.store.lastSeq;
  }

  async answer(path: string, query: URLSearchParams): Promise<unknown> {
    await this.index.ready();
    switch (path) {
      case '/api/jobs':
        return this.jobs();
      case '/api/job':
        return this.job(this.knownJob(query), query);
      case '/api/job/at':
        return this.at(this.knownJob(query), number(query, 'time'));
      case '/api/job/moments':
        return this.moments(this.knownJob(query), number(query, 'from'), number(query, 'to'));
      case '/api/chain':
        return this.chain(this.knownJob(query), optionalNumber(query, 'last'));
      case '/api/verify':
        return this.verify(this.knownJob(query));
      case '/api/sessions':
        return { sessions: (await this.handler.sessions.sessionsOf(this.knownJob(query))).slice(0, SESSIONS_SHOWN) };
      case '/api/quality':
        // The daemon's one fold of the signals (qualityIndex.ts), as `recap report --quality` reads it.
        return { quality: (await this.handler.quality.of(this.knownJob(query))) ?? null } satisfies QualityAnswer;
      case '/api/usage': {
        const bucket = query.get('bucket') ?? 'day';
        if (!Object.hasOwn(BUCKETS, bucket)) throw new UiRequestError(400, `bucket is one of: ${Object.keys(BUCKETS).join(', ')}`);
        const job = query.get('job') ?? undefined;
        if (job !== undefined) this.knownJob(query);
        return { series: this.index.usage(job, bucket as Bucket) };
      }
      default:
        throw new UiRequestError(404, `no data at ${path}`);
    }
  }

  private async jobs(): Promise<JobsAnswer> {
    const lastSeq = this.store.lastSeq;
    const { jobs } = await this.op('jobs', {});
    return { lastSeq, jobs: jobs.map((row) => ({ ...row, threshold: this.threshold(row.job), denials: this.projection().view(row.job).denials })) };
  }

  private async job(job: string, query: URLSearchParams): Promise<JobAnswer> {
    const from = optionalNumber(query, 'from');
    const to = optionalNumber(query, 'to');
    const last = optionalNumber(query, 'last');
    const width = Math.min(Math.max(Math.round(optionalNumber(query, 'width') ?? DEFAULT_WIDTH), 1), MAX_WIDTH);
    return {
      job,
      lastSeq: this.store.lastSeq,
      threshold: this.threshold(job),
      now: pastStatus(this.projection().view(job)),
      ...this.index.view(job, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), ...(last !== undefined ? { last } : {}) }, width),
    };
  }

  private async at(job: string, time: number): Promise<AtAnswer> {
    const { seq, jobs } = await this.op('replay', { job, atTime: time });
    return { seq, status: jobs[0] };
  }

  /** What happened in the job between two moments: the page's hover. */
  private async moments(job: string, from: number, to: number): Promise<MomentsAnswer> {
    if (to < from) throw new UiRequestError(400, 'to is before from');
    const seqs = this.index.momentSeqs(job, from, to, MAX_MOMENTS + 1);
    await this.store.flushed();
    const events = (await this.store.get(seqs)).map(moment);
    return { events: events.slice(0, MAX_MOMENTS), more: events.length > MAX_MOMENTS };
  }

  /**
   * The job's accepted summaries, other machines' among them by time, oldest first, whole, as `recap chain` shows them, each with
   * its gist and the files it names; with `last`, only the newest `last` of them (a long
   * job's chain is thousands).
   */
  private async chain(job: string, last: number | undefined): Promise<ChainAnswer> {
    // The projection names summaries as soon as they are decided: read them once written.
    await this.store.flushed();
    const all = allEntries(this.projection().view(job));
    const entries = await this.handler.chainEntries(job, last === undefined ? undefined : Math.max(Math.floor(last), 0));
    // The gists the projection keeps, derived for summaries that have none of their own.
    const gists = new Map(all.map((e) => [e.seq, e.gist]));
    return {
      total: all.length,
      entries: entries.map((e) => ({ ...e, gist: e.gist ?? gists.get(e.seq) ?? '', gistBy: gistAuthor(e) })),
    };
  }

  /**
   * `recap verify` for the job: a replay of the whole log, so one at a time, and an answer
   * kept until the log grows (a page that asks again for the same log gets it at once).
   */
  private verify(job: string): Promise<VerifyAnswer> {
    const seq = this.store.lastSeq;
    const kept = this.verified.get(job);
    if (kept?.seq === seq) return kept.answer;
    const answer = this.verifying.then(() => this.op('verify', { job }));
    this.verifying = answer.catch(() => undefined);
    this.verified.set(job, { seq, answer });
    answer.catch(() => this.verified.delete(job));
    return answer;
  }

  /** The job's threshold, as its configuration last applied (a project's file, else the user's). */
  private threshold(job: string): number {
    const applied = this.projection().appliedConfig;
    const value = (applied.get(job) ?? applied.get(USER_SCOPE))?.TOKEN_THRESHOLD;
    return typeof value === 'number' ? value : DEFAULT_CONFIG.TOKEN_THRESHOLD;
  }

  private knownJob(query: URLSearchParams): string {
    const job = query.get('job');
    if (job === null || job === '') throw new UiRequestError(400, 'job is missing: /api/...?job=K');
    if (!this.projection().jobs.has(job)) throw new UiRequestError(404, `no job ${JSON.stringify(job)} in the log; recap jobs lists them`);
    return job;
  }

  private async op<O extends Op>(op: O, request: Omit<RequestOf<O>, never>): Promise<ResponseOf<O>> {
    const response = await this.handler.handle({ id: 'ui', op, ...request });
    if ('error' in response) throw new UiRequestError(response.error.code === 'bad_request' ? 400 : 500, response.error.message);
    return response.result as ResponseOf<O>;
  }
}

function moment(event: StoredEvent): Moment {
  const base = { seq: event.seq, time: event.data.time, type: event.type };
  switch (event.type) {
    case 'InteractionRecorded': {
      const { kind, tokens, text } = event.data;
      return { ...base, kind, tokens, text: text.length > MOMENT_TEXT ? `${text.slice(0, MOMENT_TEXT)}…` : text };
    }
    case 'ToolDenied':
      return { ...base, tool: event.data.tool, cause: event.data.cause };
    case 'GateTripped':
      return { ...base, reason: event.data.reason, tokens: event.data.unsummarizedTokens };
    case 'SummaryAccepted':
      return { ...base, level: event.data.level, tokens: event.data.tokens };
    case 'SummaryRejected':
      return { ...base, tokens: event.data.tokens };
    case 'GatePaused':
      return { ...base, until: event.data.until, ...byOf(event.data.by) };
    case 'GateResumed':
      return { ...base, ...byOf(event.data.by) };
    case 'TripCancelled':
      return { ...base, reason: event.data.reason, ...byOf(event.data.by) };
    default:
      return base;
  }
}

/** Older logs recorded no caller. */
const byOf = (caller: Caller | undefined) => (caller !== undefined ? { by: `process ${caller.pid}: ${caller.ancestry}` } : {});

function number(query: URLSearchParams, name: string): number {
  const value = optionalNumber(query, name);
  if (value === undefined) throw new UiRequestError(400, `${name} is missing: a time in milliseconds since the epoch`);
  return value;
}

function optionalNumber(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UiRequestError(400, `${name} is not a number: ${JSON.stringify(text)}`);
  return value;
}
