// The audit's reads: pages of the log (`recap log`, following it with `wait`), the jobs,
// a past moment (`replay`), the chain's verification, the usage report and the daemon's
// counts. Each fails for a job named that has no events.
import type { RepositoryIdentity } from '../../events/events.js';
import type { JobState } from '../../events/jobState.js';
import { repositoriesByJob } from '../../events/repositoryJobs.js';
import { tripCause } from '../../events/gateMessages.js';
import type { JobRow, PastStatus } from '../../protocol/answers.js';
import { ProtocolError, type RequestOf, type ResponseOf } from '../../protocol/protocol.js';
import { eventsPage, projectionAt, storedEventsPage, verifyLog } from '../audit.js';
import { EncodedEventsPage, linesPage } from '../eventsAnswer.js';
import type { CommandService } from '../commandService.js';
import { sessionsReport, usageReport } from '../report.js';
import { known } from './job.js';
import { defined, type OpsOf } from './table.js';

export function auditOps(s: CommandService): OpsOf<'events' | 'jobs' | 'replay' | 'verify' | 'report' | 'stats'> {
  const { store, projection } = s.deps;
  return {
    events: (r) => known(s, r.job, () => events(s, r)),
    jobs: async () => {
      const repositories = repositoriesByJob(projection().repositories);
      return { jobs: [...projection().jobs.values()].map((state) => jobRow(state, repositories.get(state.job))) };
    },
    replay: (r, progress) => known(s, r.job, () => replay(s, r, progress)),
    verify: (r, progress) => known(s, r.job, () => verifyLog(store, projection, progress, r.job)),
    report: (r) => (r.session !== undefined ? oneSession(s, r.session) : known(s, r.job, () => (r.quality === true ? qualityReport(s, r.job) : jobsReport(s, r)))),
    // For benchmarks and load tests: how many events, how many synced batches wrote them,
    // and the daemon's memory (process.memoryUsage, in bytes), after a full garbage collection
    // when asked to settle and node was started with --expose-gc.
    stats: async (r) => {
      if (r.settle) (globalThis as { gc?: () => void }).gc?.();
      return { lastSeq: store.lastSeq, syncs: store.syncs, memory: process.memoryUsage() };
    },
  };
}

/** Where the tokens went per job and agent, and the jobs' newest sessions, a line each. */
async function jobsReport(s: CommandService, r: RequestOf<'report'>): Promise<ResponseOf<'report'>> {
  await s.deps.store.flushed();
  const jobs = await usageReport(s.deps.store, defined({ job: r.job, since: r.since }));
  return { jobs, sessions: await sessionsReport(s.sessions, jobs, r.since) };
}

/** The memory quality signals of the job, or of every job with a summary. */
async function qualityReport(s: CommandService, job: string | undefined): Promise<ResponseOf<'report'>> {
  await s.deps.store.flushed();
  const jobs = job !== undefined ? [job] : await s.quality.jobs();
  const quality = (await Promise.all(jobs.map((j) => s.quality.of(j)))).filter((q) => q !== undefined);
  return { jobs: [], sessions: [], quality };
}

/** One session's report: ended or still open, from the log so far. */
async function oneSession(s: CommandService, session: string): Promise<ResponseOf<'report'>> {
  await s.deps.store.flushed();
  const report = await s.sessions.report(session);
  if (report === undefined) throw new ProtocolError('unknown_job', `no session ${JSON.stringify(session)} in the log: recap report lists the sessions it knows`);
  return { jobs: [], sessions: [], session: report };
}

/** A page of events; with `wait`, a page that finds nothing new waits for new events up to that long. */
async function events(s: CommandService, r: RequestOf<'events'>): Promise<ResponseOf<'events'>> {
  const filter = defined({ job: r.job, types: r.types, since: r.since, until: r.until });
  const deadline = Date.now() + r.wait;
  let fromSeq = r.fromSeq;
  for (;;) {
    const appends = s.appends;
    // Events as stored are sent as their stored bytes make them, without building objects.
    // `stored` is a form of `lines`: asked for without it, the events come as JSON, as stored.
    const stored = r.stored && r.lines;
    const page =
      r.raw || stored
        ? await storedEventsPage(s.deps.store, fromSeq, r.limit, filter, r.wait > 0, stored ? 'stored' : r.lines ? 'lines' : 'array')
        : await eventsPage(s.deps.store, fromSeq, r.limit, filter, false, r.wait > 0);
    const found = page instanceof EncodedEventsPage ? page.count : page.events.length;
    const left = deadline - Date.now();
    if (found > 0 || page.next === null || left <= 0 || s.closing) return r.lines && !(page instanceof EncodedEventsPage) ? linesPage(page) : page;
    fromSeq = page.next;
    if (appends !== s.appends) continue;
    await s.nextAppend(left);
  }
}

async function replay(s: CommandService, r: RequestOf<'replay'>, progress?: (done: number) => void): Promise<ResponseOf<'replay'>> {
  await s.deps.store.flushed();
  const at = await projectionAt(s.deps.store, defined({ seq: r.atSeq, time: r.atTime }), progress);
  const jobs = r.job !== undefined ? [at.view(r.job)] : [...at.jobs.values()];
  return { seq: at.lastSeq, jobs: jobs.map(pastStatus) };
}

/** A job as `recap jobs` lists it. */
function jobRow(state: JobState, repository: { repo: RepositoryIdentity; folders: string[] } | undefined): JobRow {
  return {
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    summaries: state.chain.length,
    lastActivity: state.lastActivity > 0 ? state.lastActivity : null,
    agents: state.agents,
    ...(repository !== undefined ? { repo: { name: repository.repo.name, root: repository.repo.root, sub: repository.repo.sub }, folders: repository.folders } : {}),
  };
}

/** A job as it was at a past moment: `recap replay`'s answer. */
export function pastStatus(state: JobState): PastStatus {
  const last = state.chain.at(-1);
  return {
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason, cause: tripCause(state), since: new Date(state.gate.since).toISOString() } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    summaries: state.chain.length,
    denials: state.denials,
    rejections: state.rejections,
    ...(last ? { lastSummary: { seq: last.seq, time: new Date(last.time).toISOString(), hash: last.hash } } : {}),
  };
}
