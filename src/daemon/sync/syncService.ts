// `recap sync` in the daemon: this machine's summaries of a repository pushed to the project's
// git remote as one ref of its own, the other machines' refs fetched, each chain read,
// checked by the domain (chainImport.ts) and its new entries recorded (SummaryImported).
// One sync per job at a time; a session's start waits for a fetch only up to SYNC_START_WAIT,
// and a summary accepted is pushed in the background: neither ever holds a hook past its time.
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { dataDir } from '../../common/paths.js';
import { chainFiles, MAX_CHAIN_ENTRIES, readChain, type ChainHead, type ChainRecord } from '../../events/chainFormat.js';
import { isRedacted } from '../../events/chainImport.js';
import type { Config } from '../../events/config.js';
import type { RepositoryIdentity, StoredEvent, SummaryAccepted, SummaryAmended, SummaryImported } from '../../events/events.js';
import type { SyncedChain, SyncReport } from '../../protocol/answers.js';
import type { CommandService } from '../commandService.js';
import type { Where } from '../jobResolver.js';
import { ChainRepo, chainRef } from './chainRepo.js';
import { GitFailed } from './git.js';
import { machineId } from './machine.js';
import { gitAuthor, remoteUrl, SyncProblem, type Remote } from './projectGit.js';

/** How long git may take: on this machine, and with the remote. */
const LOCAL_MS = 10_000;
const REMOTE_MS = 30_000;
/** The most bytes of a fetched chain's files read. */
const MAX_CHAIN_BYTES = 128 * 1024 * 1024;

export type SyncDeps = {
  service: CommandService;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The repository a project folder is, if it is one sync can work with. */
  identify: (project: string) => RepositoryIdentity | undefined;
  /** The job the log says a repository is (by its key), if it has said. */
  jobOf: (key: string) => string | undefined;
  /** The project folder of a job, for a push no request asked for (after a summary is accepted). */
  projectOf: (job: string) => string | undefined;
};

type Ask = { push: boolean; fetch: boolean };

export class SyncService {
  readonly machine: string;
  private readonly syncDir: string;
  /** Each job's sync in flight: the next one waits for it. */
  private readonly running = new Map<string, Promise<SyncReport>>();
  private readonly last = new Map<string, SyncReport>();
  /** The commit of each machine's ref last imported (`key machine`): an unchanged ref is not read again. */
  private readonly imported = new Map<string, string>();
  /** The commit of this machine's ref last pushed, per repository key. */
  private readonly pushed = new Map<string, string>();
  private readonly stopping = new AbortController();
  private readonly follow = (stored: StoredEvent[], durable: Promise<void>) => this.onAppended(stored, durable);

  constructor(private readonly deps: SyncDeps) {
    const data = dataDir(deps.env);
    this.machine = machineId(data);
    this.syncDir = join(data, 'sync');
    deps.service.deps.store.on('appended', this.follow);
  }

  /** Kills the git commands in flight (the daemon is stopping). */
  stop(): void {
    this.deps.service.deps.store.off('appended', this.follow);
    this.stopping.abort();
  }

  /** What the last sync of the job did, or `never`. */
  async lastOf(where: Where): Promise<SyncReport> {
    const config = await this.config(where);
    return this.last.get(where.job) ?? { job: where.job, mode: config.SYNC, never: true, time: 0, ms: 0 };
  }

  /** Pushes and fetches as asked, after the job's sync in flight; the report says what happened, or what stopped it. */
  sync(where: Where, ask: Ask): Promise<SyncReport> {
    const before = this.running.get(where.job) ?? Promise.resolve(undefined);
    // After the one before, whatever became of it.
    const next = () => this.run(where, ask);
    const run = before.then(next, next);
    const kept = run.finally(() => {
      if (this.running.get(where.job) === kept) this.running.delete(where.job);
    });
    // The caller handles `run`'s failure; this copy of it is only waited on by the next sync.
    kept.catch(() => undefined);
    this.running.set(where.job, kept);
    return run;
  }

  /**
   * A session starts: other machines' summaries are fetched, waited for up to SYNC_START_WAIT;
   * the memory is then made from what is there, whatever the remote does.
   */
  async beforeMemory(where: Where): Promise<void> {
    const failed = (error: unknown) => this.deps.log.error({ err: error, job: where.job }, "the fetch at a session's start failed; the memory is what this machine has");
    try {
      const config = await this.config(where);
      if (config.SYNC_START_WAIT === 0 || !this.syncs(where, config)) return;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, config.SYNC_START_WAIT)));
      const fetched = this.sync(where, { push: false, fetch: true }).then(() => undefined, failed);
      await Promise.race([fetched, waited]);
      clearTimeout(timer);
    } catch (error) {
      failed(error);
    }
  }

  private async config(where: Where): Promise<Config> {
    return (await this.deps.service.prepare(where.project)).decide.config;
  }

  private async run(where: Where, ask: Ask): Promise<SyncReport> {
    const started = Date.now();
    const report: SyncReport = { job: where.job, mode: 'off', machine: this.machine, time: started, ms: 0 };
    try {
      const config = await this.config(where);
      report.mode = config.SYNC;
      const { project, repo } = this.repositoryOf(where, config);
      report.repo = { key: repo.key, name: repo.name };
      const remote = await remoteUrl(project, config.SYNC_REMOTE, this.deps.env);
      report.remote = remote.url;
      const chains = await ChainRepo.open(this.syncDir, repo.key, this.deps.env, { localMs: LOCAL_MS, remoteMs: REMOTE_MS, signal: this.stopping.signal });
      const author = await this.authorOf(chains, project);
      if (config.SYNC === 'personal' && author === undefined) {
        throw new SyncProblem('SYNC=personal reads the chains of your own git author, and this machine has none: set one (git config --global user.email YOU), or use SYNC=team');
      }
      if (ask.fetch) {
        await chains.fetch(remote, repo.key);
        report.fetched = await this.importAll(where, chains, repo.key, config.SYNC === 'personal' ? author : undefined);
      }
      if (ask.push) {
        const head = { format: 1, repo: repo.key, machine: this.machine, host: this.deps.env.RECAP_HOST_NAME ?? hostname(), ...(author !== undefined ? { author } : {}) };
        report.pushed = await this.push(where.job, chains, remote, head, ask.fetch);
      }
    } catch (error) {
      if (!(error instanceof SyncProblem) && !(error instanceof GitFailed)) throw error;
      report.error = error.message;
      this.deps.log.warn({ job: where.job, why: error.message }, 'recap sync did not finish');
    }
    report.ms = Date.now() - started;
    this.last.set(where.job, report);
    if (report.error === undefined) this.deps.log.info({ job: where.job, pushed: report.pushed, fetched: report.fetched?.length, ms: report.ms }, 'recap sync finished');
    return report;
  }

  /**
   * Whether a sync of the job would run (repositoryOf decides): a session's start and a summary
   * pass over a job it would not, quietly (SYNC off, a session's own job, no repository).
   */
  private syncs(where: Where, config: Config): boolean {
    try {
      this.repositoryOf(where, config);
      return true;
    } catch (error) {
      if (error instanceof SyncProblem) return false;
      throw error;
    }
  }

  /** The job's project and repository, when sync is on and the job is that repository's: else what to do. */
  private repositoryOf(where: Where, config: Config): { project: string; repo: RepositoryIdentity } {
    if (config.SYNC === 'off') {
      throw new SyncProblem(
        'sync is off (SYNC=off): set SYNC=personal (your own machines) or SYNC=team (every author) in your config file, then recap reload (recap config show says if the change waits for your recap config allow); docs/sync.md',
      );
    }
    if (config.JOB_SCOPE === 'session') throw new SyncProblem("JOB_SCOPE=session makes each session a job of its own, not the repository's: its summaries stay on this machine");
    const project = where.project;
    if (project === undefined) throw new SyncProblem(`job ${where.job} has no project folder known to this daemon: run recap sync in the project`);
    const repo = this.deps.identify(project);
    if (repo === undefined) {
      throw new SyncProblem(
        `${project} is not a git repository with a commit (or it is a shallow clone): its job cannot be found on other machines; commit once (or git fetch --unshallow), then sync`,
      );
    }
    const owner = this.deps.jobOf(repo.key);
    if (owner !== where.job) {
      throw new SyncProblem(
        owner === undefined
          ? `job ${where.job} is not known as ${project}'s repository's yet: run recap sync in the project once an agent has worked there`
          : `job ${where.job} is not the job of ${project}'s repository (${owner} is): run recap sync there without --job, or with --job ${owner}`,
      );
    }
    return { project, repo };
  }

  /**
   * The git author this machine's chain of the repository carries: the one it was first pushed
   * with, kept in recap's own repository (the project's config is per clone, and the agent's to
   * write), else the project's git author now.
   */
  private async authorOf(chains: ChainRepo, project: string): Promise<string | undefined> {
    const pinned = await chains.setting('author');
    if (pinned !== undefined) return pinned;
    const author = await gitAuthor(project, this.deps.env);
    if (author !== undefined) await chains.setSetting('author', author);
    return author;
  }

  /**
   * This machine's chain of the job, as one commit; pushed unless the remote has that commit
   * already. Once a redacted text left the chain, recap's repository drops its old copies.
   */
  private async push(job: string, chains: ChainRepo, remote: Remote, head: ChainHead, fetchedNow: boolean): Promise<{ entries: number; unchanged: boolean }> {
    const records = await this.localRecords(job);
    // No summary here yet: nothing to put on the remote (no empty ref for every machine that only reads).
    if (records.length === 0) return { entries: 0, unchanged: true };
    const ref = chainRef(head.repo, head.machine);
    // Dated by its newest entry or amendment: the same chain makes the same commit.
    const newest = records.reduce((at, r) => (r.amendments ?? []).reduce((t, a) => Math.max(t, a.time), Math.max(at, r.entry.time)), 0);
    const commit = await chains.write(ref, chainFiles(head, records), newest / 1000);
    const redacted = String(records.filter(isRedacted).length);
    if ((await chains.setting('collected')) !== redacted && redacted !== '0') {
      await chains.collect();
      await chains.setSetting('collected', redacted);
    }
    const there = fetchedNow ? (await chains.fetched(head.repo)).get(head.machine) : this.pushed.get(head.repo);
    if (there === commit) return { entries: records.length, unchanged: true };
    await chains.push(remote, ref);
    this.pushed.set(head.repo, commit);
    return { entries: records.length, unchanged: false };
  }

  /** The job's own summaries (never an imported one), oldest first, each with its amendments, as the log holds them. */
  private async localRecords(job: string): Promise<ChainRecord[]> {
    const { chain } = this.deps.service.state(job);
    const store = this.deps.service.deps.store;
    await store.flushed();
    const entries = await store.get(chain.map((e) => e.seq));
    const amendments = await store.get(chain.flatMap((e) => e.amendments ?? []));
    const amendmentOf = new Map(amendments.map((a) => [a.seq, a.data as SummaryAmended['data']]));
    return entries.map((event, index) => {
      const own = chain[index]!;
      const made = (own.amendments ?? []).flatMap((seq) => amendmentOf.get(seq) ?? []);
      return { index, seq: event.seq, entry: event.data as SummaryAccepted['data'], ...(made.length > 0 ? { amendments: made } : {}) };
    });
  }

  /** Every other machine's fetched chain of the repository, read, checked and imported. */
  private async importAll(where: Where, chains: ChainRepo, key: string, onlyAuthor: string | undefined): Promise<SyncedChain[]> {
    const found: SyncedChain[] = [];
    for (const [machine, commit] of await chains.fetched(key)) {
      if (machine === this.machine) continue;
      // A commit read once is not read again, whatever came of it: a refused chain stays refused until its machine pushes again.
      const seenKey = `${key} ${machine} ${onlyAuthor ?? ''}`;
      if (this.imported.get(seenKey) === commit) continue;
      const chain = await this.importOne(where, chains, key, machine, commit, onlyAuthor);
      this.imported.set(seenKey, commit);
      found.push(chain);
    }
    return found;
  }

  private async importOne(where: Where, chains: ChainRepo, key: string, machine: string, commit: string, onlyAuthor: string | undefined): Promise<SyncedChain> {
    const unknown = { machine, host: '?', imported: 0, updated: 0 };
    let files: Map<string, string>;
    try {
      files = await chains.files(commit, MAX_CHAIN_ENTRIES + 1, MAX_CHAIN_BYTES);
    } catch (error) {
      if (!(error instanceof GitFailed) || error.timedOut) throw error;
      return { ...unknown, refused: error.message };
    }
    const read = readChain(files);
    if (!read.ok) return this.refused(where, { ...unknown, refused: `machine ${machine}'s chain cannot be read: ${read.problem}` });
    const { head } = read.chain;
    const whose = { machine, host: head.host, ...(head.author !== undefined ? { author: head.author } : {}) };
    if (onlyAuthor !== undefined && head.author !== onlyAuthor) {
      return { ...whose, imported: 0, updated: 0, skipped: `SYNC=personal: written by ${head.author ?? 'no author'}, not ${onlyAuthor}` };
    }
    const copies = await this.textCopies(where.job, machine, read.chain.records);
    const service = this.deps.service;
    const answer = await service.transact(where, (job, now) => ({ type: 'ImportChain' as const, job, repo: key, ref: machine, chain: read.chain, now }), {
      alone: true,
      // An entry redacted on its machine: the copies that still hold its text are written again without it, in the same batch.
      rewrites: (events) => events.flatMap((e) => rewrittenCopies(e as SummaryImported, copies)),
    });
    if (answer.redactedCopies.length > 0) {
      await service.purgeLog();
      // The fetched ref's earlier commit held the text too.
      await chains.collect();
    }
    const chain = { ...whose, imported: answer.imported, updated: answer.updated };
    return answer.refused !== undefined ? this.refused(where, { ...chain, refused: answer.refused }) : chain;
  }

  private refused(where: Where, chain: SyncedChain): SyncedChain {
    this.deps.log.warn({ job: where.job, machine: chain.machine, why: chain.refused }, "recap sync refused another machine's chain");
    return chain;
  }

  /** The stored imports of entries the chain now has redacted whose copies here still hold text: by entry hash. */
  private async textCopies(job: string, machine: string, records: readonly ChainRecord[]): Promise<Map<string, StoredEvent[]>> {
    const redacted = new Set(records.filter(isRedacted).map((r) => r.entry.hash));
    const held = this.deps.service.state(job).imported.filter((e) => e.origin?.machine === machine && e.redacted === undefined && redacted.has(e.hash!));
    const copies = new Map<string, StoredEvent[]>();
    for (const entry of held) copies.set(entry.hash!, await this.deps.service.deps.store.get([...(entry.imports ?? []), entry.seq]));
    return copies;
  }

  /** A summary of the job accepted, amended or redacted here: pushed in the background when SYNC_PUSH=auto. */
  private onAppended(stored: StoredEvent[], durable: Promise<void>): void {
    const jobs = new Set<string>();
    for (const event of stored) {
      if (event.type === 'SummaryAccepted' || event.type === 'SummaryAmended' || event.type === 'EntryRedacted') jobs.add(event.data.job);
    }
    for (const job of jobs)
      void durable.then(() => this.pushAfterChange(job)).catch((error: unknown) => this.deps.log.error({ err: error, job }, 'the push after a summary failed'));
  }

  private async pushAfterChange(job: string): Promise<void> {
    const project = this.deps.projectOf(job);
    if (project === undefined) return;
    const where = { job, project };
    const config = await this.config(where);
    if (config.SYNC_PUSH !== 'auto' || !this.syncs(where, config)) return;
    await this.sync(where, { push: true, fetch: false });
  }
}

/** Each stored copy of the entry this import redacts, written again with the redacted entry and amendments in place of its own. */
function rewrittenCopies(event: SummaryImported, copies: ReadonlyMap<string, StoredEvent[]>): StoredEvent[] {
  const held = copies.get(event.data.entry.hash);
  if (held === undefined) return [];
  return held.map((copy) => {
    const data = copy.data as SummaryImported['data'];
    const { amendments: _old, ...rest } = data;
    return { ...copy, data: { ...rest, entry: event.data.entry, ...(event.data.amendments ? { amendments: event.data.amendments } : {}) } } as StoredEvent;
  });
}
