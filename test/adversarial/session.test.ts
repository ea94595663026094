// A session's job does not change under it: an agent that moves to another folder (a new
// `.git`, a real repository of its own or with a rewritten root, a new `.recap/`, a worktree,
// a submodule, /tmp, /) or hands the work to a subagent is still checked
// against the job its session started in, by the hook and by every recap command it runs,
// across a daemon restart too; and the way out, taken from the new folder, opens that job.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { RawClient, runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import { expectDenied, expectWayOutOpen, proveWayOut, runHook, runShell, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterAll);

function mkdirGit(dir: string): string {
  mkdirSync(join(dir, '.git'), { recursive: true });
  return dir;
}

type Status = { job: string; tripped: boolean };

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, '-c', 'user.name=agent', '-c', 'user.email=agent@example.com', '-c', 'init.defaultBranch=main', ...args], { stdio: 'ignore' });
}

/** A repository with a commit: a root of its own, which a new session there would take its job from. */
function committedRepository(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'notes.md'), 'x\n');
  git(dir, 'add', 'notes.md');
  git(dir, 'commit', '-qm', 'first');
  return dir;
}

/** Folders an agent can move to, made inside or beside the sandbox; each returns the folder to cd into. */
const MOVES: [string, (box: Sandbox) => string][] = [
  [
    '`mkdir x && touch x/.git` inside the project',
    (box) => {
      const x = join(box.project, 'x');
      mkdirSync(x);
      writeFileSync(join(x, '.git'), '');
      return x;
    },
  ],
  [
    'a new repository (`git init`-like .git folder) inside the project',
    (box) => {
      const repo = join(box.project, 'fresh-repo');
      mkdirSync(join(repo, '.git', 'objects'), { recursive: true });
      writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      return repo;
    },
  ],
  [
    'a git worktree beside the project (a .git file pointing back)',
    (box) => {
      const worktree = join(box.dir, 'worktree');
      mkdirSync(worktree);
      writeFileSync(join(worktree, '.git'), `gitdir: ${join(box.project, '.git', 'worktrees', 'worktree')}\n`);
      return worktree;
    },
  ],
  [
    'a nested submodule, two levels down',
    (box) => {
      const sub = join(box.project, 'vendor', 'lib', 'deep', 'src');
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(box.project, 'vendor', 'lib', '.git'), 'gitdir: ../../.git/modules/lib\n');
      writeFileSync(join(box.project, 'vendor', 'lib', 'deep', '.git'), 'gitdir: ../../../.git/modules/lib/modules/deep\n');
      return sub;
    },
  ],
  ['/tmp', () => tmpdir()],
  ['/', () => '/'],
  [
    'a symlinked folder that leads into another repository',
    (box) => {
      const other = join(box.dir, 'elsewhere');
      mkdirSync(join(other, '.git'), { recursive: true });
      const link = join(box.project, 'link');
      symlinkSync(other, link);
      return link;
    },
  ],
  [
    'a repository of its own whose project config raises the threshold',
    (box) => {
      const lax = join(box.dir, 'lax');
      mkdirSync(join(lax, '.git'), { recursive: true });
      mkdirSync(join(lax, '.recap'));
      writeFileSync(join(lax, '.recap', 'config.conf'), 'TOKEN_THRESHOLD=1000000\n');
      return lax;
    },
  ],
  ['a real repository with a commit (`git init && git commit`) inside the project: a repository of its own', (box) => committedRepository(join(box.project, 'own-history'))],
  [
    'a repository whose history was rewritten to a new root (`git checkout --orphan` and a commit)',
    (box) => {
      const repo = committedRepository(join(box.dir, 'rewritten'));
      git(repo, 'checkout', '-q', '--orphan', 'fresh');
      git(repo, 'commit', '-qm', 'a new root');
      return repo;
    },
  ],
  [
    'a `.recap/` folder made inside the project: a sub-project of its own',
    (box) => {
      const sub = join(box.project, 'sub-project');
      mkdirSync(join(sub, '.recap'), { recursive: true });
      return sub;
    },
  ],
  ['a folder that does not exist', (box) => join(box.dir, 'gone', 'away')],
];

describe('an agent that moves to another folder', () => {
  let attack: Attack;
  const moved: string[] = [];
  beforeAll(async () => {
    attack = await trippedGate(newBox(), start);
  });

  it.each(MOVES)('%s: its tool calls are still denied, and the way out from there is open', async (_what, move) => {
    const cwd = move(attack.box);
    moved.push(cwd);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Bash', { command: 'ls' }, { cwd })));
    expect(reason).toContain(`job ${attack.job} `);
    expectDenied(await runHook(attack.box.env, toolCall(attack, 'Write', { file_path: join(cwd, 'notes.md'), content: 'x' }, { cwd })));
    await expectWayOutOpen(attack, { cwd });
  });

  it.each([
    ['a repository of its own beside the project', (box: Sandbox) => mkdirGit(join(box.dir, 'subagent-repo'))],
    ['/tmp', () => tmpdir()],
    ['the project itself', (box: Sandbox) => box.project],
  ])("a subagent (agent_id) of the session working in %s is denied on the session's job; its way out is open", async (_what, folder) => {
    const cwd = folder(attack.box);
    const subagent = { agent_id: 'a1b2c3d4', agent_type: 'general-purpose' };
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(cwd, 'x.ts') }, { ...subagent, cwd })));
    expect(reason).toContain(`job ${attack.job} `);
    await expectWayOutOpen(attack, { cwd, fields: subagent });
  });

  it.each([
    ['status', ['status', '--json']],
    ['context', ['context', '--json']],
    ['check', ['check', '--tool', 'Read', '--json']],
  ])("recap %s run by the agent in each moved folder names the session's job", async (command, args) => {
    // The folders the moves above made (run this file whole: a filtered run has none).
    expect(moved.length).toBe(MOVES.length);
    for (const cwd of moved.filter((m) => !m.includes('gone'))) {
      const run = await runCli(attack.box, args, { cwd, env: { CLAUDE_CODE_SESSION_ID: attack.session } });
      if (command === 'status') expect(JSON.parse(run.stdout)).toMatchObject({ job: attack.job, tripped: true });
      if (command === 'context') expect(run.stdout).toContain(`job ${attack.job} `);
      if (command === 'check') expect(run.code, run.stderr).toBe(2);
    }
  });

  it("a user at a terminal (no CLAUDE_CODE_SESSION_ID) in a moved folder sees that folder's own job", async () => {
    const x = join(attack.box.project, 'x');
    const run = await runCli(attack.box, ['status', '--json'], { cwd: x });
    expect(JSON.parse(run.stdout) as Status).toMatchObject({ job: jobIdFor(x), tripped: false });
    const here = await runCli(attack.box, ['status', '--json'], { cwd: attack.box.project });
    expect(JSON.parse(here.stdout) as Status).toMatchObject({ job: attack.job, tripped: true });
  });

  it('--job and RECAP_JOB still win over the session', async () => {
    const cwd = join(attack.box.project, 'x');
    const env = { CLAUDE_CODE_SESSION_ID: attack.session };
    expect(JSON.parse((await runCli(attack.box, ['status', '--json', '--job', 'named-job'], { cwd, env })).stdout)).toMatchObject({ job: 'named-job' });
    expect(JSON.parse((await runCli(attack.box, ['status', '--json'], { cwd, env: { ...env, RECAP_JOB: 'env-job' } })).stdout)).toMatchObject({ job: 'env-job' });
  });

  it("the way out, taken from the `mkdir x && touch x/.git` folder, opens the session's job", async () => {
    const x = join(attack.box.project, 'x');
    await proveWayOut(attack, { cwd: x });
    const status = await runShell(attack, 'recap status --json', x);
    expect(JSON.parse(status.stdout)).toMatchObject({ job: attack.job, tripped: false });
    // The summary is on the session's chain, as recap chain shows it from there; x's own job has none.
    const chain = await runShell(attack, 'recap chain --json', x);
    expect((JSON.parse(chain.stdout) as { entries: unknown[] }).entries).toHaveLength(1);
    const terminal = await runCli(attack.box, ['chain', '--json'], { cwd: x });
    expect((JSON.parse(terminal.stdout) as { entries: unknown[] }).entries).toHaveLength(0);
  });
});

describe('a session bound to its job across a daemon restart', () => {
  it.each([
    ['SIGTERM', 'SIGTERM'],
    ['SIGKILL', 'SIGKILL'],
  ] as const)('after a %s and a restart, the moved agent is still denied on its job, and the way out works from there', async (_what, signal) => {
    const attack = await trippedGate(newBox(), start);
    const x = join(attack.box.project, 'x');
    mkdirSync(x);
    writeFileSync(join(x, '.git'), '');
    await attack.daemon.stop(signal);
    attack.daemon = await start(attack.box);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(x, 'a.ts') }, { cwd: x })));
    expect(reason).toContain(`job ${attack.job} `);
    await expectWayOutOpen(attack, { cwd: x });
    await proveWayOut(attack, { cwd: x });
  });
});

describe('with JOB_SCOPE=session', () => {
  let attack: Attack;
  let x: string;
  const sessionJob = 'session-attack-session-0001';
  beforeAll(async () => {
    attack = await trippedGate(newBox(), async (box) => {
      appendFileSync(box.config, 'JOB_SCOPE=session\n');
      return start(box);
    });
    x = join(attack.box.project, 'x');
    mkdirSync(x);
    writeFileSync(join(x, '.git'), '');
  });

  it("the hook denies on the session's own job, in the project and after a move", async () => {
    expect(expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: 'a.ts' })))).toContain(`job ${sessionJob} `);
    expect(expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: 'a.ts' }, { cwd: x })))).toContain(`job ${sessionJob} `);
    expect(expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: 'a.ts' }, { cwd: '/tmp' })))).toContain(`job ${sessionJob} `);
    await expectWayOutOpen(attack, { cwd: x });
  });

  it("recap status run by the agent names the same job the hook used; at a terminal, the project's", async () => {
    const agent = await runCli(attack.box, ['status', '--json'], { cwd: x, env: { CLAUDE_CODE_SESSION_ID: attack.session } });
    expect(JSON.parse(agent.stdout)).toMatchObject({ job: sessionJob, tripped: true });
    const user = await runCli(attack.box, ['status', '--json'], { cwd: attack.box.project });
    expect(JSON.parse(user.stdout)).toMatchObject({ job: attack.job, tripped: false });
  });

  it('a second session in the same project has a job of its own, not tripped', async () => {
    const other = { ...attack, session: 'another-session' };
    const run = await runHook(attack.box.env, toolCall(other, 'Read', { file_path: 'a.ts' }));
    expect(run.stdout).not.toContain('"permissionDecision":"deny"');
  });

  it("the deny message's own command, run from the moved folder, opens the session's job", async () => {
    await proveWayOut(attack, { cwd: x });
  });
});

describe('the first folder a session is seen in decides', () => {
  it('parallel first calls of a new session from two folders agree on one job', async () => {
    const box = newBox();
    const daemon = await start(box);
    const x = mkdtempSync(join(box.dir, 'x-'));
    mkdirSync(join(x, '.git'));
    const attack = { box, daemon, session: 'fresh-session', job: jobIdFor(box.project), shellEnv: box.env } as Attack;
    await Promise.all([runHook(box.env, toolCall(attack, 'Read', { file_path: 'a.ts' })), runHook(box.env, toolCall(attack, 'Read', { file_path: 'a.ts' }, { cwd: x }))]);
    const jobs = await Promise.all(
      [box.project, x, '/tmp'].map(
        async (cwd) => (JSON.parse((await runCli(box, ['status', '--json'], { cwd, env: { CLAUDE_CODE_SESSION_ID: 'fresh-session' } })).stdout) as Status).job,
      ),
    );
    expect(new Set(jobs).size).toBe(1);
    expect([jobIdFor(box.project), jobIdFor(x)]).toContain(jobs[0]);
  });
});

describe('a request that names no job, session or folder', () => {
  it('is refused with what to give, and the daemon goes on', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const refused = await client.request({ id: 1, op: 'status' });
    expect(refused.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('give job (--job or RECAP_JOB), or cwd') });
    const relative = await client.request({ id: 2, op: 'status', cwd: 'relative/folder' });
    expect(relative.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('cwd must be an absolute path') });
    const answered = await client.request({ id: 3, op: 'status', cwd: box.project });
    expect(answered.result).toMatchObject({ job: jobIdFor(box.project), tripped: false });
    client.close();
  });
});
