// A job is its repository: every clone, worktree and moved copy of one (the same root commit,
// the same folder in it) is one job. Which job a project folder seen for the first time is,
// and the fold of the JobIdentified events that record it. Pure: the repository is read by
// the caller (common/repository.ts), the folder's path-keyed job named by it too.
import type { JobIdentified, RepositoryIdentity, Time } from './events.js';
import { jobName } from './jobNames.js';

/** A project folder's job as its JobIdentified said, with the repository it is. */
export type FolderJob = { job: string; repo: RepositoryIdentity };

/** What the log says of repositories: each folder's job, each repository's (by key). */
export type RepositoryJobs = { folders: Map<string, FolderJob>; byKey: Map<string, string> };

export function newRepositoryJobs(): RepositoryJobs {
  return { folders: new Map(), byKey: new Map() };
}

/** The job of a repository no job was named after before: its name and the start of its key. */
export function repositoryJobId(repo: RepositoryIdentity): string {
  return `${jobName(repo.name)}-${repo.key.slice(0, 8)}`;
}

/** What is known of a project folder seen for the first time. */
export type FirstSight = {
  project: string;
  /** Its repository; undefined for none (outside git, no commits, shallow, git failed). */
  repo: RepositoryIdentity | undefined;
  /** The job of that repository, if the log (or a decision on its way there) names one. */
  repoJob: string | undefined;
  /** The job named after the folder's path, and whether the log holds anything of it. */
  pathJob: string;
  pathJobHasHistory: boolean;
  now: Time;
};

/** A folder's job, and the event that records it (none for a folder that is no repository's). */
export type Identification = { job: string; event?: JobIdentified };

/**
 * A folder of no repository keeps its path-keyed job. A folder of a known repository is its
 * job (a clone, a worktree, a moved copy). A repository seen for the first time takes over the
 * folder's path-keyed job when that has history (joined: nothing moves, the chain stays whole),
 * else gets a job of its own.
 */
export function identifyJob(seen: FirstSight): Identification {
  const { project, repo, now } = seen;
  if (repo === undefined) return { job: seen.pathJob };
  const joined = seen.repoJob === undefined && seen.pathJobHasHistory;
  const job = seen.repoJob ?? (joined ? seen.pathJob : repositoryJobId(repo));
  const event: JobIdentified = { type: 'JobIdentified', data: { job, project, repo, ...(joined ? { joined: true as const } : {}), time: now } };
  return { job, event };
}

/** Folds a JobIdentified in: a folder's first job holds, and a repository's first. */
export function foldIdentified(jobs: RepositoryJobs, event: JobIdentified): void {
  const { job, project, repo } = event.data;
  if (!jobs.folders.has(project)) jobs.folders.set(project, { job, repo });
  if (!jobs.byKey.has(repo.key)) jobs.byKey.set(repo.key, job);
}

/** A job's repository and the folders known for it, for `recap jobs`. */
export function repositoriesByJob(jobs: RepositoryJobs): Map<string, { repo: RepositoryIdentity; folders: string[] }> {
  const byJob = new Map<string, { repo: RepositoryIdentity; folders: string[] }>();
  for (const [project, { job, repo }] of jobs.folders) {
    const entry = byJob.get(job);
    if (entry === undefined) byJob.set(job, { repo, folders: [project] });
    else entry.folders.push(project);
  }
  return byJob;
}
