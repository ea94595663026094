// A session's job: fixed when the session is first seen, so that moving to another folder
// (a new `.git`, a worktree, /tmp) never moves the session to another job. Pure: the
// folder's project and its JOB_SCOPE are found by the caller.
import type { SessionBound, Time } from './events.js';

/** What a session is bound to: its job and the project whose configuration the job follows. */
export type SessionBinding = { job: string; project: string };

/** The job of a session of its own (JOB_SCOPE=session). */
export function sessionJobId(session: string): string {
  return `session-${session.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * The job a session starting in `project` gets: the project's (its repository's, asked only
 * then: finding it may take git), or its own with JOB_SCOPE=session, whatever the repository.
 */
export function firstJob(session: string | undefined, projectJob: () => string, scope: 'project' | 'session'): string {
  return scope === 'session' && session !== undefined ? sessionJobId(session) : projectJob();
}

export function sessionBound(session: string, binding: SessionBinding, cwd: string, now: Time): SessionBound {
  return { type: 'SessionBound', data: { session, job: binding.job, project: binding.project, cwd, time: now } };
}

/** Folds a SessionBound in: the first binding of a session holds, a later one changes nothing. */
export function bindSession(sessions: Map<string, SessionBinding>, event: SessionBound): void {
  if (!sessions.has(event.data.session)) sessions.set(event.data.session, { job: event.data.job, project: event.data.project });
}
