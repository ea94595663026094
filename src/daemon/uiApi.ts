// The audit page's data: each /api path answered from the daemon's own ops (the same
// answers as `recap jobs`, `replay --at`, `chain`, `verify`) and, for what the page draws,
// from the audit index. Read-only: nothing here appends an event.
import type { StoredEvent } from '../events/events.js';
import { eventsPage, type Verification } from './audit.js';
import { AuditIndex, BUCKETS, type Bucket, type JobView, type UsageSeries } from './auditIndex.js';
import type { EventStore } from './eventStore.js';
import { pastStatus, type Handler } from './handler.js';
import type { Projection } from './projection.js';
import type { JobRow, Op, PastStatus, RequestOf, ResponseOf } from './protocol.js';
import { UiRequestError } from './uiServer.js';

const DEFAULT_WIDTH = 1200;
const MAX_WIDTH = 8000;
const MAX_MOMENTS = 50;
const MOMENT_TEXT = 160;
const MOMENT_TYPES = ['InteractionRecorded', 'ToolDenied', 'GateTripped', 'SummaryAccepted', 'SummaryRejected'] as const;

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
};

/** What each /api path answers: the page's side of the contract (ui/src/api.ts). */
export type JobsAnswer = { lastSeq: number; jobs: (JobRow & { threshold: number; denials: number })[] };
export type JobAnswer = JobView & { job: string; lastSeq: number; threshold: number; now: PastStatus };
export type AtAnswer = { seq: number; status: PastStatus | undefined };
export type MomentsAnswer = { events: Moment[]; more: boolean };
export type ChainAnswer = { entries: ResponseOf<'chain'>['entries'] };
export type VerifyAnswer = Verification;
export type UsageAnswer = { series: UsageSeries[] };
/** /api/live's `change` event: the log's last sequence number and the jobs that changed. */
export type LiveChange = { lastSeq: number; jobs: string[] };

export class UiApi {
  readonly index: AuditIndex;

  constructor(
    private readonly handler: Handler,
    private readonly projection: () => Projection,
    private readonly store: EventStore,
  ) {
    this.index = new AuditIndex(store);
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
        return { entries: (await this.op('chain', { job: this.knownJob(query) })).entries };
      case '/api/verify':
        return this.op('verify', { job: this.knownJob(query) });
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
    const rows = await Promise.all(
      jobs.map(async (row) => {
        const { threshold } = await this.op('status', { job: row.job });
        return { ...row, threshold, denials: this.projection().view(row.job).denials };
      }),
    );
    return { lastSeq, jobs: rows };
  }

  private async job(job: string, query: URLSearchParams): Promise<JobAnswer> {
    const from = optionalNumber(query, 'from');
    const to = optionalNumber(query, 'to');
    const last = optionalNumber(query, 'last');
    const width = Math.min(Math.max(Math.round(optionalNumber(query, 'width') ?? DEFAULT_WIDTH), 1), MAX_WIDTH);
    const { threshold } = await this.op('status', { job });
    return {
      job,
      lastSeq: this.store.lastSeq,
      threshold,
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
    const start = this.index.firstSeqAt(job, from);
    if (start === undefined) return { events: [], more: false };
    const page = await eventsPage(this.store, start, MAX_MOMENTS + 1, { job, types: [...MOMENT_TYPES], since: from, until: to }, false);
    const events = page.events.map((line) => moment({ seq: line.seq, type: line.type, data: line.data } as StoredEvent));
    return { events: events.slice(0, MAX_MOMENTS), more: events.length > MAX_MOMENTS };
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
    default:
      return base;
  }
}

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
