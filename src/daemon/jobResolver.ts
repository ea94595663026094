// The one owner of "which job is this?", for the hook and every CLI command alike: an
// explicit job wins; else the session's job as bound when it was first seen; else the
// job of the folder's project (or the session's own with JOB_SCOPE=session), which binds
// the session from then on. A project's job is its repository's (events/repositoryJobs.ts):
// read with git once per folder, then from the log's JobIdentified, after a restart too.
import { isAbsolute } from 'node:path';
import { jobIdFor, projectRoot } from '../common/jobs.js';
import { repositoryOf } from '../common/repository.js';
import type { JobIdentified, RepositoryIdentity, SessionBound, Time } from '../events/events.js';
import { identifyJob, type Identification } from '../events/repositoryJobs.js';
import { firstJob, sessionBound, type SessionBinding } from '../events/sessions.js';
import type { ConfigService } from './configService.js';
import type { Projection } from './projection.js';
import { ProtocolError } from '../protocol/protocol.js';

/** What a request says about its job: any of these, explicit job first. */
export type JobFields = { job?: string | undefined; session?: string | undefined; cwd?: string | undefined; project?: string | undefined };

/**
 * The job a request is about, its project, the binding to record if the session is new, and
 * which job its project folder is if the log does not say yet.
 */
export type Where = { job: string; project?: string; bind?: SessionBound; identified?: JobIdentified };

/** Reads a folder's repository (common/repository.ts; a test may count the calls). */
export type RepositoryReader = (project: string) => RepositoryIdentity | undefined;

/** The most folders (and not yet stored bindings) kept in memory. */
const MAX_FOLDERS = 10_000;
/**
 * How long a folder found to be no repository's is taken as none by requests of no new
 * session (a new session's first call reads it again): `git init`, then the first commit made
 * while the daemon runs, makes it one, which its clones then share.
 */
const NO_REPOSITORY_KEPT_MS = 10_000;

export class JobResolver {
  /** Each working folder's project, found once, not on every call. */
  private readonly folders = new Map<string, string>();
  /** Bindings decided but not yet in the projection: concurrent first calls agree on one. */
  private readonly pending = new Map<string, SessionBinding>();
  /** Project folders' jobs decided but not yet in the projection, and their repositories' (by key). */
  private readonly identified = new Map<string, Identification & { at: Time }>();
  private readonly repoJobs = new Map<string, string>();

  constructor(
    private readonly projection: () => Projection,
    private readonly config: ConfigService,
    private readonly readRepository: RepositoryReader = repositoryOf,
  ) {}

  resolve(r: JobFields, now: Time): Where {
    const cwd = r.cwd !== undefined && isAbsolute(r.cwd) ? r.cwd : undefined;
    const session = r.session !== undefined && r.session !== '' ? r.session : undefined;
    // A bound session's folder is never looked at: where it went no longer matters.
    const bound = r.job === undefined && session !== undefined ? this.bound(session) : undefined;
    if (session !== undefined && bound !== undefined) return this.bindingOf(session, bound, cwd ?? bound.project, now);
    const project = r.project ?? (cwd !== undefined ? this.projectOf(cwd) : undefined);
    if (r.job !== undefined) return project !== undefined ? { job: r.job, project } : { job: r.job };
    if (project === undefined) {
      throw new ProtocolError('bad_request', 'no job given and no folder to derive it from: give job (--job or RECAP_JOB), or cwd');
    }
    const scope = this.config.forProject(project).config.JOB_SCOPE;
    const binding = { job: firstJob(session, () => this.projectJob(project, now, session !== undefined), scope), project };
    if (session === undefined) {
      const identified = this.unrecorded(project);
      return identified === undefined ? binding : { ...binding, identified };
    }
    // Entries whose binding is stored are dropped when next looked up; a bound keeps the rest small.
    if (this.pending.size >= MAX_FOLDERS) this.pending.clear();
    this.pending.set(session, binding);
    return this.bindingOf(session, binding, cwd ?? project, now);
  }

  /**
   * The project folder's job: as the log says, else as decided the first time it was seen
   * (JobIdentified). `newSession`: a session is being bound to it, which reads again a folder
   * that was no repository's.
   */
  private projectJob(project: string, now: Time, newSession: boolean): string {
    const projection = this.projection();
    const known = projection.repositories.folders.get(project);
    if (known !== undefined) {
      this.identified.delete(project);
      return known.job;
    }
    let decided = this.identified.get(project);
    // No repository then (no event) may be one now: read again for a new session, or after a while.
    if (decided !== undefined && decided.event === undefined && (newSession || now - decided.at > NO_REPOSITORY_KEPT_MS)) decided = undefined;
    if (decided === undefined) {
      const repo = this.readRepository(project);
      const pathJob = jobIdFor(project);
      const repoJob = repo === undefined ? undefined : (projection.repositories.byKey.get(repo.key) ?? this.repoJobs.get(repo.key));
      decided = { ...identifyJob({ project, repo, repoJob, pathJob, pathJobHasHistory: projection.jobs.has(pathJob), now }), at: now };
      if (this.identified.size >= MAX_FOLDERS) this.identified.clear();
      if (this.repoJobs.size >= MAX_FOLDERS) this.repoJobs.clear();
      this.identified.set(project, decided);
      if (repo !== undefined) this.repoJobs.set(repo.key, decided.job);
    }
    return decided.job;
  }

  /** The JobIdentified decided for a folder and not yet in the log. */
  private unrecorded(project: string): JobIdentified | undefined {
    const event = this.identified.get(project)?.event;
    return event === undefined || this.projection().repositories.folders.has(project) ? undefined : event;
  }

  /** The session's binding: in the log, or decided a moment ago and on its way there. */
  private bound(session: string): SessionBinding | undefined {
    const recorded = this.projection().sessionJob(session);
    if (recorded !== undefined) {
      this.pending.delete(session);
      return recorded;
    }
    return this.pending.get(session);
  }

  private bindingOf(session: string, binding: SessionBinding, cwd: string, now: Time): Where {
    // Until the binding is in the log, every call of the session carries it (the first one stored wins).
    // Two literals, not `{ ...where, bind }`: on Node 20's V8 that object would outlive the young generation.
    if (this.projection().sessionJob(session) !== undefined) return { job: binding.job, project: binding.project };
    const bind = sessionBound(session, binding, cwd, now);
    const identified = this.unrecorded(binding.project);
    return identified === undefined ? { job: binding.job, project: binding.project, bind } : { job: binding.job, project: binding.project, bind, identified };
  }

  private projectOf(cwd: string): string {
    let project = this.folders.get(cwd);
    if (project === undefined) {
      project = projectRoot(cwd);
      if (this.folders.size >= MAX_FOLDERS) this.folders.clear();
      this.folders.set(cwd, project);
    }
    return project;
  }
}
