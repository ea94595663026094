// The user's switches and the gate's guards on a platform that knows less: recap run on the
// fake macOS platform (src/platform/fakeMacos.ts: processes from ps as macOS reads them, no
// /proc, no way to learn a socket's peer or a lock's holder). Each fact it cannot learn
// takes the side that never opens a tripped gate and never locks the user out: a command
// that would open or weaken the gate is asked at the user's terminal (the word shown out of
// an agent's sight), one that only makes recap stricter runs, an agent is still refused by
// what ps shows of it, and a stopped daemon still denies.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonProcess, eventsOf, RawClient, removeSandbox, ROOT, sandbox, type Sandbox } from '../helpers/daemon.js';
import { expectAllowed, expectDenied, openGate, outputOf, payload, toolCall, trippedGate, type Attack, type HookRun } from '../helpers/gateAttack.js';

const LAUNCHER = join(ROOT, 'test', 'helpers', 'onFakeMacos.mjs');
const boxes: Sandbox[] = [];
const daemons: DaemonProcess[] = [];

afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => (d.child.kill('SIGCONT'), d.stop('SIGKILL'))));
  for (const box of boxes.splice(0)) removeSandbox(box);
});

function newBox(): Sandbox {
  const box = sandbox();
  box.env.FAKE_MACOS_NOTICES = join(box.dir, 'notices.txt');
  boxes.push(box);
  return box;
}

/** `recap daemon` on the fake platform, once it says it is ready (and on which platform). */
async function startOnFake(box: Sandbox): Promise<DaemonProcess> {
  const daemon = new DaemonProcess(box, spawn(process.execPath, [LAUNCHER, 'daemon'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] }));
  daemons.push(daemon);
  const ready = await Promise.race([daemon.waitForLog((l) => l.msg === 'recap daemon ready'), daemon.exited.then(() => undefined)]);
  if (ready === undefined) throw new Error(`the daemon exited at start:\n${daemon.stderr.join('\n')}`);
  expect(ready.platform).toBe('fake-macos');
  return daemon;
}

/** recap on the fake platform in a session of its own with no terminal (as an agent's shell tool runs it). */
function withoutTerminal(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  return outputOf(spawn(process.execPath, [LAUNCHER, ...args], { cwd: box.project, env: { ...box.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
}

const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * recap on the fake platform at a terminal (script(1) gives it one): `answer` is typed once
 * recap asks for a word, given the notices shown so far. What the terminal showed, and how it ended.
 */
function atTerminal(box: Sandbox, args: string[], answer: (notices: string) => string): Promise<{ screen: string; code: number | null }> {
  const command = [process.execPath, LAUNCHER, ...args].map(quoted).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: box.project, env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
    if (!answered && /word: $/.test(screen)) {
      answered = true;
      child.stdin.write(`${answer(notices(box))}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      child.stdin.destroy();
      resolve({ screen, code });
    });
  });
}

const notices = (box: Sandbox) => {
  try {
    return readFileSync(box.env.FAKE_MACOS_NOTICES!, 'utf8');
  } catch {
    return '';
  }
};

/** The word in the last notice recap showed the user. */
const shownWord = (text: string) => [...text.matchAll(/type ([a-z]{6}) at your terminal/g)].at(-1)?.[1] ?? 'none';

const readCall = (attack: Attack) => toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') });

function runFakeHook(env: NodeJS.ProcessEnv, input: unknown): Promise<HookRun> {
  const child = spawn(process.execPath, [LAUNCHER, '--hook', 'claude'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(child);
  child.stdin.end(JSON.stringify(input));
  return output;
}

/** A request sent over the socket by a program, with a word. */
async function sendConfirmed(attack: Attack, request: Record<string, unknown>, word: string): Promise<Record<string, unknown>> {
  const client = await RawClient.connect(attack.box.socket);
  try {
    return await client.request({ id: 1, ...request, confirm: word });
  } finally {
    client.close();
  }
}

describe('a user command whose caller cannot be learned', () => {
  it('is refused where there is no terminal to confirm it at: the tripped gate stays tripped', async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    const run = await withoutTerminal(attack.box, ['pause', '1h']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/recap pause is the user's to run, and this system cannot tell who sent it .*no terminal to confirm it at: run it in your own terminal/);
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
    expect(await eventsOf(attack.box, 'GatePaused')).toEqual([]);
  });

  it("is run once the user types, at their terminal, the word recap showed them out of an agent's sight", async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    const run = await atTerminal(attack.box, ['pause', '1h'], shownWord);
    expect(run.code, run.screen).toBe(0);
    // The question does not hold the word: only the notice does (the terminal then echoes what the user typed).
    const question = run.screen.slice(0, run.screen.indexOf('word: '));
    expect(question).toContain('type the word recap just showed you in a notification');
    expect(question).not.toContain(shownWord(notices(attack.box)));
    expectAllowed(await runFakeHook(attack.box.env, readCall(attack)));
    const [paused] = await eventsOf(attack.box, 'GatePaused');
    expect((paused?.by as { ancestry: string }).ancestry).toMatch(/^confirmed at a terminal; /);
  });

  it('is not run for a wrong word, which voids the word shown (no guessing one by one)', async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    const wrong = await atTerminal(attack.box, ['trip', '--cancel'], () => 'abcdef');
    expect(wrong.code).toBe(1);
    expect(wrong.screen).toContain('the word typed was not the one recap asked for, so nothing was done');
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
    const [first] = [...notices(attack.box).matchAll(/type ([a-z]{6}) at your terminal/g)].map((m) => m[1]);
    expect(await sendConfirmed(attack, { op: 'trip', job: attack.job, cancel: true }, first!)).toMatchObject({ error: { code: 'unconfirmed' } });
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
  });

  it('takes a word once: the one that confirmed a pause, sent again by a program after resume, confirms nothing', async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    expect((await atTerminal(attack.box, ['pause', '1h'], shownWord)).code).toBe(0);
    expectAllowed(await runFakeHook(attack.box.env, readCall(attack)));
    // resume only makes recap stricter: it runs unasked.
    const resumed = await withoutTerminal(attack.box, ['resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
    const replay = await sendConfirmed(attack, { op: 'pause', job: attack.job, until: Date.now() + 3_600_000 }, shownWord(notices(attack.box)));
    expect(replay).toMatchObject({ error: { code: 'unconfirmed' } });
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
  });

  it('runs unasked when it only makes recap stricter (trip)', async () => {
    const attack = await openGate(newBox(), startOnFake);
    expect((await withoutTerminal(attack.box, ['record', '--text', 'please tidy the parser'])).exitCode).toBe(0);
    const run = await withoutTerminal(attack.box, ['trip', '--reason', 'checkpoint']);
    expect(run.exitCode, run.stderr).toBe(0);
    expectDenied(await runFakeHook(attack.box.env, readCall(attack)));
  });

  it("is still refused to an agent's shell, whose variables ps shows", async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    const run = await withoutTerminal(attack.box, ['pause', '1h'], { CLAUDECODE: '1' });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/recap pause is the user's to run, from their own terminal, and it came from process .*CLAUDECODE is set/);
    expect(notices(attack.box)).toBe('');
  });
});

describe('RECAP_DISABLE=1 read through ps', () => {
  /** A stand-in agent (node) that runs its hook through sh, started by bash, which sets the variable first. */
  function throughAgent(attack: Attack, shell: string, input: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
    const agent = join(attack.box.dir, 'agent.cjs');
    const hook = `${process.execPath} ${LAUNCHER} --hook claude`;
    writeFileSync(
      agent,
      `const run = require('node:child_process').spawnSync('sh', ['-c', ${JSON.stringify(hook)}], { input: process.argv[2], encoding: 'utf8' });
process.stdout.write(run.stdout);
process.exitCode = run.status;`,
    );
    return outputOf(
      spawn('bash', ['-c', `${shell}; ${process.execPath} ${agent} "$PAYLOAD"; exit $?`], {
        env: { ...attack.box.env, ...env, PAYLOAD: JSON.stringify(input) },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  it("from the user's shell: the tripped gate lets the agent through", async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    expectAllowed(await throughAgent(attack, 'export RECAP_DISABLE=1', readCall(attack)));
    expectDenied(await throughAgent(attack, 'true', readCall(attack)));
  });

  it("set in an agent's shell: ignored, the gate holds", async () => {
    const attack = await trippedGate(newBox(), startOnFake);
    const run = await throughAgent(attack, 'export RECAP_DISABLE=1', readCall(attack), { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: attack.session });
    expectDenied(run);
    expect(run.stdout).toContain('it was set in an agent');
  });
});

describe('a stopped daemon, its lock holder not known', () => {
  it("is found from its pid file, and the agent's call is denied as on Linux", async () => {
    const attack = await openGate(newBox(), startOnFake);
    attack.daemon.child.kill('SIGSTOP');
    const run = await runFakeHook(
      { ...attack.box.env, RECAP_HOOK_DEADLINE_MS: '1000' },
      payload(attack, 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: join(attack.box.project, 'README.md') } }),
    );
    expect(expectDenied(run)).toContain(`the daemon (PID ${attack.daemon.child.pid}) is stopped (SIGSTOP)`);
  });
});
