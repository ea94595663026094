// The user's switches, against the real daemon and the real hook client: `recap trip
// --cancel`, `recap pause` / `recap resume`, RECAP_DISABLE=1 from the user's own shell,
// <private> text, and the one-line notices the user sees in the agent when the gate moves.
// Each switch is the user's: the agent is refused in its shell and by the hook.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, ON_FAKE_MACOS, runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import {
  expectAllowed,
  expectDenied,
  filledIn,
  HOOK,
  openGate,
  payload,
  runShell,
  submitCommandIn,
  runHook,
  toolCall,
  TRIP_PROMPTS,
  trippedGate,
  type Attack,
  type HookRun,
} from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);

async function status(box: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const run = await runCli(box, ['status', '--json'], { env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

const readCall = (attack: Attack) => toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') });
const bash = (attack: Attack, command: string) => toolCall(attack, 'Bash', { command, description: 'x' });
const systemMessage = (run: HookRun): string | undefined => (run.stdout.trim() === '' ? undefined : (JSON.parse(run.stdout) as { systemMessage?: string }).systemMessage);

describe('recap trip --cancel, and no trip with nothing to summarize', () => {
  it('refuses a trip with nothing to summarize; cancels a trip, stored as TripCancelled; the agent may not cancel', async () => {
    const attack = await openGate(newBox(), start);
    const { box } = attack;
    const empty = await runCli(box, ['trip']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/has nothing to summarize .*the gate stays open/);

    expect((await runCli(box, ['record', '--text', 'please tidy the parser'])).code).toBe(0);
    expect((await runCli(box, ['trip', '--reason', 'checkpoint'])).code).toBe(0);
    expect((await status(box)).tripped).toBe(true);

    // The agent: its shell (the CLI refuses) and its tool call (the hook denies).
    const inShell = await runCli(box, ['trip', '--cancel'], { env: attack.shellEnv });
    expect(inShell.code).toBe(1);
    expect(inShell.stderr).toMatch(/recap trip is the user's to run/);
    expect(expectDenied(await runHook(box.env, bash(attack, 'recap trip --cancel')))).toBeTruthy();
    expect((await status(box)).tripped).toBe(true);

    const cancelled = await runCli(box, ['trip', '--cancel']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('trip cancelled: the gate is open');
    expect(await status(box)).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
    expect(await eventsOf(box, 'TripCancelled')).toEqual([expect.objectContaining({ job: attack.job, reason: 'manual' })]);
    expectAllowed(await runHook(box.env, readCall(attack)));
  });
});

describe('recap pause and resume', () => {
  it('pauses the gate (nothing counts or trips, a tripped gate lets tools through), resumes it, and both are events', async () => {
    const attack = await trippedGate(newBox(), start);
    const { box } = attack;
    const bad = await runCli(box, ['pause', 'soon']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot read the duration "soon": give a number and a unit, such as 90s, 30m, 2h or 1d/);
    const agent = await runCli(box, ['pause', '1h'], { env: attack.shellEnv });
    expect(agent.stderr).toMatch(/recap pause is the user's to run/);
    expect(expectDenied(await runHook(box.env, bash(attack, 'recap pause 1h')))).toMatch(/recap pause changes recap's setup/);

    const paused = await runCli(box, ['pause', '2h']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/^paused: until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /);
    // Who paused it, as the system told it; on the fake macOS platform no peer is known, and the word typed is said.
    expect(paused.stdout).toMatch(ON_FAKE_MACOS ? /paused by you \(process confirmed at a terminal; .+\) until/ : /paused by you \(process node \d+ ← .+\) until/);
    const before = (await status(box)).unsummarizedTokens;
    expect((await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt: 'a long paste '.repeat(200) }))).exitCode).toBe(0);
    expect((await status(box)).unsummarizedTokens).toBe(before);
    expectAllowed(await runHook(box.env, readCall(attack)));
    // recap's own files stay off limits while paused.
    expectDenied(await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.data, 'log', 'CURRENT') })));

    const resumed = await runCli(box, ['resume']);
    expect(resumed.stdout).toContain('resumed');
    expectDenied(await runHook(box.env, readCall(attack)));
    expect(await eventsOf(box, 'GatePaused')).toHaveLength(1);
    expect(await eventsOf(box, 'GateResumed')).toHaveLength(1);
    expect((await eventsOf(box, 'InteractionRecorded')).at(-1)).toMatchObject({ counted: false, paused: true });
  });
});

describe('notices to the user', () => {
  it('the hook answer that trips the gate carries one line for the user; the next answer after a summary says it was accepted; status says when', async () => {
    const attack = await openGate(newBox(), start);
    const { box } = attack;
    const answers: HookRun[] = [];
    for (const prompt of TRIP_PROMPTS) {
      answers.push(await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt })));
    }
    const tripping = answers.find((a) => systemMessage(a) !== undefined);
    expect(systemMessage(tripping!)).toMatch(/^recap: the gate of job .* tripped \(\d+ unsummarized tokens reached the threshold of 300\); the agent must write a summary/);
    // Shown once: the deny that follows has no notice.
    const deny = await runHook(box.env, readCall(attack));
    expectDenied(deny);
    expect(systemMessage(deny)).toBeUndefined();
    expect((await status(box)).lastNotice).toMatchObject({ kind: 'tripped' });
    expect((await runCli(box, ['status'])).stdout).toMatch(/last notice to you in the agent: the gate tripped, \d{4}-/);

    // The agent takes the way out in its shell: no hook answer carries that.
    const submitted = await runShell(attack, filledIn(submitCommandIn(expectDenied(await runHook(box.env, readCall(attack))))));
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    const next = await runHook(box.env, readCall(attack));
    expectAllowed(next);
    expect(systemMessage(next)).toMatch(/^recap: a summary of job .* was accepted \(1 in its chain\); the gate is open$/);
    expect(systemMessage(await runHook(box.env, readCall(attack)))).toBeUndefined();
    expect((await status(box)).lastNotice).toMatchObject({ kind: 'accepted' });
    expect((await eventsOf(box, 'NoticeShown')).map((e) => e.kind)).toEqual(['tripped', 'accepted']);
  });
});

describe('<private> text', () => {
  it('is neither stored nor counted', async () => {
    const attack = await openGate(newBox(), start);
    const run = await runHook(
      attack.box.env,
      payload(attack, 'UserPromptSubmit', { prompt: 'connect with <private>the key sk-live-123456 and my home address</private> as before' }),
    );
    expect(run.exitCode).toBe(0);
    const recorded = await eventsOf(attack.box, 'InteractionRecorded');
    expect(recorded.map((e) => e.text)).toEqual(['connect with  as before']);
    expect(JSON.stringify(recorded)).not.toContain('sk-live');
  });
});

/**
 * A stand-in for an agent: a Node process that runs its hook as agents do (`sh -c` with the
 * payload on stdin) and prints the hook's answer. Started by `bash`, which sets the variable.
 */
async function throughAgent(attack: Attack, shell: string, input: unknown, shellEnv: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  const agent = join(attack.box.dir, 'agent.cjs');
  writeFileSync(
    agent,
    `const { spawnSync } = require('node:child_process');
const run = spawnSync('sh', ['-c', ${JSON.stringify(`${process.execPath} ${HOOK} claude`)}], { input: process.argv[2], encoding: 'utf8' });
process.stdout.write(run.stdout);
process.exitCode = run.status;`,
  );
  return new Promise((resolve, reject) => {
    // `exit $?` keeps bash from handing its process over to the agent: bash is the shell that set it.
    const child = spawn('bash', ['-c', `${shell}; ${process.execPath} ${agent} "$PAYLOAD"; exit $?`], {
      env: { ...attack.box.env, ...shellEnv, PAYLOAD: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
  });
}

describe('RECAP_DISABLE=1', () => {
  it("from the user's shell: a tripped gate lets everything through, nothing is recorded, and it says so once per session", async () => {
    const attack = await trippedGate(newBox(), start);
    const first = await throughAgent(attack, 'export RECAP_DISABLE=1', readCall(attack));
    expectAllowed(first);
    expect(systemMessage(first)).toMatch(/^recap is off in this shell \(RECAP_DISABLE=1\): nothing is counted or gated/);
    const second = await throughAgent(attack, 'export RECAP_DISABLE=1', payload(attack, 'UserPromptSubmit', { prompt: 'not counted at all' }));
    expect(second.stdout).toBe('');
    expect((await eventsOf(attack.box, 'InteractionRecorded')).some((e) => e.text === 'not counted at all')).toBe(false);
    expect(await eventsOf(attack.box, 'RecapDisabled')).toEqual([expect.objectContaining({ session: attack.session, agent: 'claude' })]);
    // Without it, the same agent is gated again.
    expectDenied(await throughAgent(attack, 'true', readCall(attack)));
  });

  it("set in an agent's shell: ignored, the gate holds, and the user is told why", async () => {
    const attack = await trippedGate(newBox(), start);
    const run = await throughAgent(attack, 'export RECAP_DISABLE=1', readCall(attack), { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: attack.session });
    expectDenied(run);
    expect(systemMessage(run)).toMatch(/RECAP_DISABLE is ignored, so recap works as usual: it was set in an agent's shell \(CLAUDECODE is set/);
    expect(await eventsOf(attack.box, 'RecapDisabled')).toEqual([]);
  });

  it("the agent's tool call that sets it is denied, open gate or not", async () => {
    const attack = await openGate(newBox(), start);
    const reason = expectDenied(await runHook(attack.box.env, bash(attack, 'RECAP_DISABLE=1 claude -p "carry on"')));
    expect(reason).toContain("the command sets RECAP_DISABLE, the user's own switch");
    expectAllowed(await runHook(attack.box.env, bash(attack, 'grep -n RECAP_DISABLE README.md')));
  });
});
