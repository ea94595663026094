// The one owner of "which job is this?", for the hook and every CLI command alike: an
// explicit job wins; else the session's job as bound when it was first seen; else the
// job of the folder's project (or the session's own with JOB_SCOPE=session), which binds
// the session from then on.
import { isAbsolute } from 'node:path';
import { jobIdFor, projectRoot } from '../common/jobs.js';
import type { SessionBound, Time } from '../events/events.js';
import { firstJob, sessionBound, type SessionBinding } from '../events/sessions.js';
import type { ConfigService } from './configService.js';
import type { Projection } from './projection.js';
import { ProtocolError } from '../protocol/protocol.js';

/** What a request says about its job: any of these, explicit job first. */
export type JobFields = { job?: string | undefined; session?: string | undefined; cwd?: string | undefined; project?: string | undefined };

/** The job a request is about, its project, and the binding to record if the session is new. */
export type Where = { job: string; project?: string; bind?: SessionBound };

/** The most folders (and not yet stored bindings) kept in memory. */
const MAX_FOLDERS = 10_000;

export class JobResolver {
  /** Each working folder's project, found once, not on every call. */
  private readonly folders = new Map<string, string>();
  /** Bindings decided but not yet in the projection: concurrent first calls agree on one. */
  private readonly pending = new Map<string, SessionBinding>();

  constructor(
    private readonly projection: () => Projection,
    private readonly config: ConfigService,
  ) {}

  resolve(r: JobFields, now: Time): Where {
    const cwd = r.cwd !== undefined && isAbsolute(r.cwd) ? r.cwd : undefined;
    const session = r.session !== undefined && r.session !== '' ? r.session : undefined;
    // A bound session's folder is never looked at: where it went no longer matters.
    const bound = r.job === undefined && session !== undefined ? this.bound(session) : undefined;
    if (session !== undefined && bound !== undefined) return this.bindingOf(session, bound, cwd ?? bound.project, now);
    const project = r.project ?? (cwd !== undefined ? this.projectOf(cwd) : undefined);
    if (r.job !== undefined) return { job: r.job, ...(project !== undefined ? { project } : {}) };
    if (project === undefined) {
      throw new ProtocolError('bad_request', 'no job given and no folder to derive it from: give job (--job or RECAP_JOB), or cwd');
    }
    const scope = this.config.forProject(project).config.JOB_SCOPE;
    const binding = { job: firstJob(session, jobIdFor(project), scope), project };
    if (session === undefined) return binding;
    // Entries whose binding is stored are dropped when next looked up; a bound keeps the rest small.
    if (this.pending.size >= MAX_FOLDERS) this.pending.clear();
    this.pending.set(session, binding);
    return this.bindingOf(session, binding, cwd ?? project, now);
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
    return { job: binding.job, project: binding.project, bind: sessionBound(session, binding, cwd, now) };
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
