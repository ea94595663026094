// Which job a project folder seen for the first time is (events/repositoryJobs.ts): no
// repository keeps the path-keyed job, a known repository gives its job, a new one takes over
// a path-keyed job with history (joined) or gets one of its own; and the ids they read as.
import { describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { jobName } from '../../src/events/jobNames.js';
import { foldIdentified, identifyJob, newRepositoryJobs, repositoriesByJob, repositoryJobId, type FirstSight } from '../../src/events/repositoryJobs.js';

const REPO = { key: '0123abcd4567ef89', root: 'a'.repeat(40), sub: '', name: 'parser' };
const seen = (more: Partial<FirstSight>): FirstSight => ({
  project: '/home/u/parser',
  repo: REPO,
  repoJob: undefined,
  pathJob: jobIdFor('/home/u/parser'),
  pathJobHasHistory: false,
  now: 7,
  ...more,
});

describe('a project folder seen for the first time', () => {
  it('of no repository: the path-keyed job, and no event', () => {
    expect(identifyJob(seen({ repo: undefined, pathJobHasHistory: true }))).toEqual({ job: jobIdFor('/home/u/parser') });
  });

  it("of a repository the log knows: that repository's job, recorded for the folder", () => {
    const { job, event } = identifyJob(seen({ project: '/tmp/clone', repoJob: 'parser-0123abcd', pathJobHasHistory: true }));
    expect(job).toBe('parser-0123abcd');
    expect(event).toEqual({ type: 'JobIdentified', data: { job: 'parser-0123abcd', project: '/tmp/clone', repo: REPO, time: 7 } });
  });

  it('of a new repository whose folder had a path-keyed job with history: that job, joined', () => {
    const { job, event } = identifyJob(seen({ pathJobHasHistory: true }));
    expect(job).toBe(jobIdFor('/home/u/parser'));
    expect(event?.data).toMatchObject({ job, joined: true });
  });

  it('of a new repository with nothing before: a job named after the repository and its key', () => {
    const { job, event } = identifyJob(seen({}));
    expect(job).toBe('parser-0123abcd');
    expect(event?.data).not.toHaveProperty('joined');
  });
});

describe('job names', () => {
  it("a repository's job: its name as a job id may hold it, and the first 8 of its key", () => {
    expect(repositoryJobId({ ...REPO, name: 'my app (v2)' })).toBe('my_app_v2_-0123abcd');
    expect(repositoryJobId({ ...REPO, name: '' })).toBe('root-0123abcd');
  });

  it('a folder name is cut at 40 characters', () => {
    expect(jobName('x'.repeat(60))).toBe('x'.repeat(40));
  });
});

describe('the fold of JobIdentified', () => {
  it('keeps the first job of each folder and of each repository, and lists the folders of each job in order', () => {
    const jobs = newRepositoryJobs();
    const identified = (job: string, project: string) => foldIdentified(jobs, { type: 'JobIdentified', data: { job, project, repo: REPO, time: 1 } });
    identified('parser-0123abcd', '/a');
    identified('parser-0123abcd', '/b');
    identified('other-1', '/a');
    identified('other-1', '/c');
    expect(jobs.byKey.get(REPO.key)).toBe('parser-0123abcd');
    expect([...repositoriesByJob(jobs).entries()]).toEqual([
      ['parser-0123abcd', { repo: REPO, folders: ['/a', '/b'] }],
      ['other-1', { repo: REPO, folders: ['/c'] }],
    ]);
  });
});
