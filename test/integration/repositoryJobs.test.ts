// A job is its repository, against the real daemon and real git repositories: a clone at
// another path, a worktree and a moved copy are one job (a summary written in one is the
// memory of a new session in another); a folder outside git and a repository without commits
// keep their path-keyed jobs; a job used before its repository had a commit is joined, its
// chain verified and its summary still the memory, after a restart or by the next session; a monorepo's sub-project with its own
// `.recap/` is a job of its own; `recap jobs` names each job's repository.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { repositoryOf } from '../../src/common/repository.js';
import { repositoryJobId } from '../../src/events/repositoryJobs.js';
import { RawClient, removedAfterEach, runCli, sandbox, startDaemon, type Sandbox } from '../helpers/daemon.js';
import { additionalContext, deniedReason, type HookAnswer } from '../helpers/hookAnswers.js';
import { hookCommands, runHookCommand } from '../helpers/hookCommand.js';
import type { JobRow } from '../../src/protocol/answers.js';

// Summaries of a line each: the point here is which job they land in.
const CONFIG = ['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=1000000', 'REQUIRED_SECTIONS=("Notes")', 'MIN_TOKENS_PER_SECTION=1', 'SUMMARY_MIN_TOKENS=1', 'GIST=recap'];
const IDENTITY = ['-c', 'user.name=recap test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main'];

const { boxes, daemons, clients } = removedAfterEach();

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...IDENTITY, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A repository at `dir` with one commit (none when `commit` is false). */
function repository(dir: string, commit = true): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'README.md'), '# parser\n');
  if (commit) {
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-qm', 'first');
  }
  return dir;
}

const jsonLines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

async function setup() {
  const box = sandbox();
  boxes.push(box);
  writeFileSync(box.config, `${CONFIG.join('\n')}\n`);
  return connect(box);
}

async function connect(box: Sandbox) {
  const daemon = await startDaemon(box);
  daemons.push(daemon);
  const client = await RawClient.connect(box.socket);
  clients.push(client);
  let nextId = 1;
  async function op<T>(request: Record<string, unknown>): Promise<T> {
    const response = await client.request({ id: nextId++, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  }
  const hook = (payload: Record<string, unknown>) => op<HookAnswer>({ op: 'hook', agent: 'claude', payload });
  return {
    box,
    daemon,
    op,
    /** The job a terminal in `cwd` is about. */
    jobAt: async (cwd: string) => (await op<{ job: string }>({ op: 'status', cwd })).job,
    /** A session's prompt in `cwd`, then its summary marked `marker`: accepted. */
    summarize: async (session: string, cwd: string, marker: string) => {
      await hook({ session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt: `make the parser read ${marker} values` });
      const answer = await op<{ accepted: boolean; problems?: string[] }>({
        op: 'submit',
        session,
        cwd,
        text: `## Notes\n${marker} the parser reads quoted values and reports each mistake.`,
      });
      expect(answer.problems ?? []).toEqual([]);
      expect(answer.accepted).toBe(true);
    },
    /** What a new session starting in `cwd` is handed. */
    memoryAt: async (session: string, cwd: string) =>
      additionalContext(await hook({ session_id: session, cwd, hook_event_name: 'SessionStart', source: 'startup' }), 'SessionStart'),
    jobs: async () => JSON.parse((await runCli(box, ['jobs', '--json'])).stdout) as { jobs: JobRow[] },
  };
}

describe('a job is its repository', () => {
  it('a clone at another path is the same job: a summary written in the original is the memory of a new session in the clone', async () => {
    const h = await setup();
    const original = repository(join(h.box.dir, 'parser'));
    const clone = join(h.box.dir, 'elsewhere', 'parser-clone');
    execFileSync('git', ['clone', '-q', original, clone], { stdio: 'ignore' });
    await h.summarize('s-original', original, 'Marker-Clone');
    const job = await h.jobAt(original);
    expect(job).toBe(repositoryJobId(repositoryOf(original)!));
    expect(job).toMatch(/^parser-[0-9a-f]{8}$/);

    expect(await h.memoryAt('s-clone', clone)).toContain('Marker-Clone');
    expect(await h.jobAt(clone)).toBe(job);
  });

  it('a worktree (git worktree add) is the same job', async () => {
    const h = await setup();
    const original = repository(join(h.box.dir, 'parser'));
    const worktree = join(h.box.dir, 'parser-feature');
    git(original, 'worktree', 'add', '-q', worktree);
    await h.summarize('s-main', original, 'Marker-Worktree');
    expect(await h.memoryAt('s-worktree', join(worktree))).toContain('Marker-Worktree');
    expect(await h.jobAt(worktree)).toBe(await h.jobAt(original));
  });

  it('a moved copy (cp -r, then mv) is the same job', async () => {
    const h = await setup();
    const original = repository(join(h.box.dir, 'parser'));
    await h.summarize('s-before', original, 'Marker-Moved');
    const copy = join(h.box.dir, 'copy');
    cpSync(original, copy, { recursive: true });
    const moved = join(h.box.dir, 'moved', 'parser');
    mkdirSync(join(h.box.dir, 'moved'));
    renameSync(copy, moved);
    expect(await h.memoryAt('s-after', moved)).toContain('Marker-Moved');
    expect(await h.jobAt(moved)).toBe(await h.jobAt(original));
  });

  it('parallel first calls of two sessions in two clones of a repository new to recap bind both to one job', async () => {
    const h = await setup();
    const a = repository(join(h.box.dir, 'parser'));
    const b = join(h.box.dir, 'parser-b');
    execFileSync('git', ['clone', '-q', a, b], { stdio: 'ignore' });
    const prompt = (session: string, cwd: string) =>
      h.op({ op: 'hook', agent: 'claude', payload: { session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'read the config' } });
    await Promise.all([prompt('s-a', a), prompt('s-b', b)]);
    const bound = jsonLines<{ data: { session: string; job: string } }>((await runCli(h.box, ['log', '--type', 'SessionBound', '--json'])).stdout);
    expect(bound.map((e) => e.data.job)).toEqual([await h.jobAt(a), await h.jobAt(a)]);
    expect(await h.jobAt(b)).toBe(await h.jobAt(a));
  });

  it('a folder outside git and a repository without commits keep the jobs named after their paths, and record no JobIdentified', async () => {
    const h = await setup();
    const plain = join(h.box.dir, 'plain');
    mkdirSync(plain);
    const empty = repository(join(h.box.dir, 'empty'), false);
    await h.summarize('s-plain', plain, 'Marker-Plain');
    await h.summarize('s-empty', empty, 'Marker-Empty');
    expect(await h.jobAt(plain)).toBe(jobIdFor(plain));
    expect(await h.jobAt(empty)).toBe(jobIdFor(empty));
    const identified = await runCli(h.box, ['log', '--type', 'JobIdentified', '--json']);
    expect(identified.stdout).not.toContain('JobIdentified');
  });

  it('a job used before its repository had a commit is joined: the same job, its chain verified, its summary the memory of the clone', async () => {
    const h = await setup();
    const project = repository(join(h.box.dir, 'legacy'), false);
    await h.summarize('s-old', project, 'Marker-Legacy');
    const old = jobIdFor(project);
    expect(await h.jobAt(project)).toBe(old);
    // The repository gets its first commit; the daemon starts again, as after an upgrade.
    git(project, 'add', 'README.md');
    git(project, 'commit', '-qm', 'first');
    await h.daemon.stop('SIGTERM');
    const again = await connect(h.box);

    const clone = join(h.box.dir, 'legacy-clone');
    execFileSync('git', ['clone', '-q', project, clone], { stdio: 'ignore' });
    expect(await again.memoryAt('s-new', project)).toContain('Marker-Legacy');
    expect(await again.jobAt(project)).toBe(old);
    expect(await again.memoryAt('s-clone', clone)).toContain('Marker-Legacy');
    expect(await again.jobAt(clone)).toBe(old);
    const log = jsonLines<{ data: { project: string; joined?: boolean } }>((await runCli(h.box, ['log', '--job', old, '--type', 'JobIdentified', '--json'])).stdout);
    expect(log.map((e) => [e.data.project, e.data.joined ?? false])).toEqual([
      [project, true],
      [clone, false],
    ]);
    const verify = await runCli(h.box, ['verify', '--job', old]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it('a repository whose first commit is made while the daemon runs is joined by the next session: its clone shares the job and its memory', async () => {
    const h = await setup();
    const project = repository(join(h.box.dir, 'fresh'), false);
    await h.summarize('s-before', project, 'Marker-Fresh');
    const old = jobIdFor(project);
    expect(await h.jobAt(project)).toBe(old);
    git(project, 'add', 'README.md');
    git(project, 'commit', '-qm', 'first');
    // No restart: the next session in the folder reads it again and records the repository.
    expect(await h.memoryAt('s-after', project)).toContain('Marker-Fresh');
    const clone = join(h.box.dir, 'fresh-clone');
    execFileSync('git', ['clone', '-q', project, clone], { stdio: 'ignore' });
    expect(await h.memoryAt('s-clone', clone)).toContain('Marker-Fresh');
    expect(await h.jobAt(clone)).toBe(old);
    const row = (await h.jobs()).jobs.find((j) => j.job === old);
    expect(row?.repo?.name).toBe('fresh');
  });

  it('a folder the log knows keeps its job after a restart, without asking git again (its .git made unreadable to git)', async () => {
    const h = await setup();
    const project = repository(join(h.box.dir, 'known'));
    await h.summarize('s-1', project, 'Marker-Known');
    const job = await h.jobAt(project);
    await h.daemon.stop('SIGTERM');
    rmSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, '.git'));
    const again = await connect(h.box);
    expect(await again.jobAt(project)).toBe(job);
    expect(job).not.toBe(jobIdFor(project));
  });

  it("a monorepo's sub-project with its own .recap/ is a job of its own, named after its folder, its place in the repository shown by recap jobs", async () => {
    const h = await setup();
    const mono = repository(join(h.box.dir, 'mono'));
    const app = join(mono, 'packages', 'app');
    mkdirSync(join(app, '.recap'), { recursive: true });
    mkdirSync(join(app, 'src'));
    await h.summarize('s-root', mono, 'Marker-Root');
    await h.summarize('s-app', join(app, 'src'), 'Marker-App');
    const rootJob = await h.jobAt(join(mono, 'packages'));
    const appJob = await h.jobAt(join(app, 'src'));
    expect(appJob).not.toBe(rootJob);
    expect(appJob).toMatch(/^app-[0-9a-f]{8}$/);
    expect(await h.memoryAt('s-app-2', app)).not.toContain('Marker-Root');
    const row = (await h.jobs()).jobs.find((j) => j.job === appJob)!;
    expect(row).toMatchObject({ repo: { name: 'app', sub: 'packages/app' }, folders: [app] });
  });

  it('recap jobs names each job and its repository, and the folders known for it', async () => {
    const h = await setup();
    const original = repository(join(h.box.dir, 'parser'));
    const clone = join(h.box.dir, 'parser-2');
    execFileSync('git', ['clone', '-q', original, clone], { stdio: 'ignore' });
    await h.summarize('s-1', original, 'Marker-One');
    await h.summarize('s-2', clone, 'Marker-Two');
    const root = git(original, 'rev-list', '--max-parents=0', 'HEAD');
    const job = await h.jobAt(original);
    const { jobs } = await h.jobs();
    expect(jobs.find((j) => j.job === job)).toMatchObject({ repo: { name: 'parser', root, sub: '' }, folders: [original, clone] });

    const table = await runCli(h.box, ['jobs']);
    expect(table.code, table.stderr).toBe(0);
    const line = table.stdout.split('\n').find((l) => l.startsWith(job))!;
    expect(line).toContain(`parser @ ${root.slice(0, 12)}`);
    expect(table.stdout).toContain(`${job}: ${original}, ${clone}`);
  });

  it("denies a new session in a clone of a tripped repository's job through the verdict file while the daemon is down, and the way out works once it is back", async () => {
    const h = await setup();
    const original = repository(join(h.box.dir, 'parser'));
    const clone = join(h.box.dir, 'elsewhere', 'parser-clone');
    execFileSync('git', ['clone', '-q', original, clone], { stdio: 'ignore' });
    await h.op({ op: 'hook', agent: 'claude', payload: { session_id: 's-1', cwd: original, hook_event_name: 'UserPromptSubmit', prompt: 'make the parser strict' } });
    expect((await runCli(h.box, ['trip', '--reason', 'wrap up'], { cwd: original })).code).toBe(0);
    // A session starts in the clone: the log learns the clone is the tripped job's repository.
    await h.memoryAt('s-clone', clone);
    await h.daemon.stop('SIGKILL');

    // A data folder that is a file: recap-hook's attempt to start a daemon fails at once, so the verdict file answers.
    const blocked = join(h.box.dir, 'not-a-folder');
    writeFileSync(blocked, 'x');
    const call = { session_id: 's-new', cwd: clone, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' };
    const denied = await runHookCommand({ ...h.box, project: clone }, hookCommands('claude')['recap-hook'], call, { RECAP_DATA_DIR: blocked });
    const job = repositoryJobId(repositoryOf(original)!);
    expect(deniedReason({ stdout: denied.stdout, exitCode: denied.code ?? -1 })).toContain(`it last knew job ${job} as tripped`);

    const back = await connect(h.box);
    const answer = await back.op<{ accepted: boolean }>({
      op: 'submit',
      session: 's-new',
      cwd: clone,
      text: '## Notes\nThe parser is strict now and reports each mistake with its line.',
    });
    expect(answer.accepted).toBe(true);
    expect((await back.op<{ tripped: boolean }>({ op: 'status', cwd: original })).tripped).toBe(false);
  });
});
