// How a folder's name reads in a job id: the characters a job id may hold, at most 40 of them.
// Both kinds of job id use it: a path-keyed job's (common/jobs.ts) and a repository's (repositoryJobs.ts).

/** The part of a job id named after a folder: other characters become `_`; `root` for none. */
export function jobName(folderName: string): string {
  return folderName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || 'root';
}
