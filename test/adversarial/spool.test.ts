// A prompt the daemon could not take is kept, not lost: the agent stops the daemon (SIGSTOP,
// from a program), or the daemon is down and cannot start, and the user's prompt goes through
// the real hook; recap-hook keeps it in the spool, and the daemon counts it when it answers
// again, so the gate trips all the same and the agent's next tool call is denied. The spool
// takes no foreign file and grows only so far.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { entryName, SPOOL_MAX_BYTES, SPOOL_MAX_ENTRIES } from '../../src/common/promptSpool.js';
import { ROOT, runCli, trackedSandboxes, type DaemonProcess, type LogLine } from '../helpers/daemon.js';
import {
  expectAllowed,
  expectDenied,
  openGate,
  outputOf,
  payload,
  proveWayOut,
  runHook,
  runShell,
  toolCall,
  TRIP_PROMPTS,
  type Attack,
  type HookRun,
} from '../helpers/gateAttack.js';

import { canMount, mountTmpfs as mountOn } from '../helpers/tmpfs.js';

const { newBox, start } = trackedSandboxes(afterEach);
/** Daemons a test stopped: continued before trackedSandboxes kills them (after-hooks run last registered first). */
const stopped: ChildProcess[] = [];
/** Folders a test mounted a small tmpfs on. */
const mounts: string[] = [];
afterEach(() => {
  for (const child of stopped.splice(0)) child.kill('SIGCONT');
  for (const dir of mounts.splice(0)) spawnSync('umount', ['-l', dir]);
});

const MOUNT = canMount();
if (!MOUNT) console.warn('[spool] mount is not permitted here: the disk-full cases are skipped');

/** A tmpfs on `dir`, unmounted after the test. */
function mountTmpfs(dir: string, size: string): void {
  mountOn(dir, size);
  mounts.push(dir);
}

/** Fills the file system `dir` is on, to its last byte, with one file; its path. */
function fill(dir: string): string {
  const file = join(dir, 'filler.bin');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size > 0;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

const LAUNCHER = join(ROOT, 'bin', 'recap-hook.sh');
/** The hook's deadline in these tests: a stopped daemon costs the hook this long, not 8 s. */
const DEADLINE_MS = 1500;
/** One prompt over the attack's threshold of 300 tokens on its own. */
const BIG_PROMPT = TRIP_PROMPTS.join('\n\n');
const KEPT = 'this prompt was kept and will be counted when the daemon answers again';
const TAKEN = 'prompts kept while the daemon did not answer taken from the spool';

const spool = (attack: Attack) => join(attack.box.data, 'spool');
const spooled = (attack: Attack) => readdirSync(spool(attack)).filter((name) => !name.startsWith('.'));
const hookEnv = (attack: Attack) => ({ ...attack.box.env, RECAP_HOOK_DEADLINE_MS: String(DEADLINE_MS) });

/** The hook as an installed agent runs it: /bin/sh recap-hook.sh NODE claude. */
function launcherHook(attack: Attack, input: unknown): Promise<HookRun> {
  const child = spawn('/bin/sh', [LAUNCHER, process.execPath, 'claude'], { env: hookEnv(attack), stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(child);
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(input));
  return output;
}

/** The notice a prompt's answer carries (Claude's systemMessage). */
function noticeOf(run: HookRun): string {
  expect(run.exitCode, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { systemMessage: string }).systemMessage;
}

/** The prompts the log holds for the attack's job. */
async function promptsRecorded(attack: Attack): Promise<{ text: string; time: number; promptId?: string }[]> {
  const out = (await runCli(attack.box, ['log', '--json', '--type', 'InteractionRecorded'])).stdout.trim();
  return out === '' ? [] : out.split('\n').map((line) => (JSON.parse(line) as { data: { text: string; time: number; promptId?: string } }).data);
}

/** The daemon's next line saying it took the spool. */
function spoolTaken(daemon: DaemonProcess): Promise<LogLine> {
  const before = daemon.lines.length;
  return daemon.waitForLog((l) => l.msg.startsWith(TAKEN) && daemon.linesAfter(before).includes(l));
}

function stop(attack: Attack): number {
  const pid = attack.daemon.child.pid!;
  stopped.push(attack.daemon.child);
  return pid;
}

describe('a prompt sent while the daemon is stopped (SIGSTOP)', () => {
  it('is kept by the real launcher within its deadline, counted once the daemon is continued: the next tool call is denied, and the way out opens the gate', async () => {
    const attack = await openGate(newBox(), start);
    const pid = stop(attack);
    process.kill(pid, 'SIGSTOP');
    const sent = Date.now();
    const run = await launcherHook(attack, payload(attack, 'UserPromptSubmit', { prompt: BIG_PROMPT }));
    const answered = Date.now();
    // The deadline, and the Node that recap-hook starts: never the agent's hook timeout.
    expect(answered - sent).toBeLessThan(DEADLINE_MS + 3000);
    expect(noticeOf(run)).toContain(KEPT);
    const [file] = spooled(attack);
    expect(statSync(join(spool(attack), file!)).mode & 0o777).toBe(0o600);

    const taken = spoolTaken(attack.daemon);
    process.kill(pid, 'SIGCONT');
    // Recorded by the spool, or by the request recap-hook sent (which the daemon reads once it
    // is continued), and then skipped by the other: once either way.
    expect(await taken).toMatchObject({ recorded: expect.any(Number), skipped: expect.any(Number) });
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect(reason).toContain('submit');
    expect(spooled(attack)).toEqual([]);
    // Once, at the time it came, though the request recap-hook sent also reached the daemon once it was continued.
    const prompts = (await promptsRecorded(attack)).filter((p) => p.text === BIG_PROMPT);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.time).toBeGreaterThanOrEqual(sent);
    expect(prompts[0]!.time).toBeLessThanOrEqual(answered);
    await proveWayOut(attack);
  });

  it('stopped and continued by a Python one-liner the agent runs: the prompt in between trips the gate for the very next tool call, nothing awaited; the way out opens it', async () => {
    const attack = await openGate(newBox(), start);
    const pid = stop(attack);
    expect((await runShell(attack, `python3 -c 'import os; os.kill(${pid}, 19)'`)).exitCode).toBe(0);
    expect(noticeOf(await runHook(hookEnv(attack), payload(attack, 'UserPromptSubmit', { prompt: BIG_PROMPT })))).toContain(KEPT);
    // Still stopped: the tool call is denied as for any silent daemon.
    expectDenied(await runHook(hookEnv(attack), toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    expect((await runShell(attack, `python3 -c 'import os; os.kill(${pid}, 18)'`)).exitCode).toBe(0);
    // Nothing awaited: the agent's very next tool call finds the gate tripped (hooks wait for the spool's pass).
    await proveWayOut(attack);
    expect((await promptsRecorded(attack)).filter((p) => p.text === BIG_PROMPT)).toHaveLength(1);
  });
});

/** Stops the attack's daemon and leaves it unable to start: its event log's folder is a file. */
async function downForGood(attack: Attack): Promise<() => void> {
  await attack.daemon.stop();
  const log = join(attack.box.data, 'log');
  renameSync(log, `${log}.aside`);
  writeFileSync(log, 'not a folder\n');
  return () => {
    rmSync(log);
    renameSync(`${log}.aside`, log);
  };
}

describe('a prompt sent while the daemon is down and cannot start', () => {
  it('is kept, and counted when the daemon starts: the gate is tripped before it says it is ready; the way out opens it', async () => {
    const attack = await openGate(newBox(), start);
    const mend = await downForGood(attack);
    const run = await runHook({ ...attack.box.env, RECAP_HOOK_DEADLINE_MS: '4000' }, payload(attack, 'UserPromptSubmit', { prompt: BIG_PROMPT }));
    expect(noticeOf(run)).toContain(KEPT);
    expect(spooled(attack)).toHaveLength(1);
    mend();
    attack.daemon = await start(attack.box);
    expect(attack.daemon.lines.find((l) => l.msg.startsWith(TAKEN))).toMatchObject({ recorded: 1, tripped: true });
    expect(JSON.parse((await runCli(attack.box, ['status', '--json'])).stdout)).toMatchObject({ tripped: true });
    await proveWayOut(attack);
  });

  it('a flood of prompts stops at the cap in files, and in bytes; the prompt past it is said not to be kept', async () => {
    const attack = await openGate(newBox(), start);
    const mend = await downForGood(attack);
    mkdirSync(spool(attack), { recursive: true, mode: 0o700 });
    // Files of other names, which the daemon leaves alone, do not count toward the cap.
    for (let i = 0; i < SPOOL_MAX_ENTRIES; i += 1) writeFileSync(join(spool(attack), `.junk-${i}`), '', { mode: 0o600 });
    // A flood already there, as a program could leave it: one file short of the cap.
    for (let i = 1; i < SPOOL_MAX_ENTRIES; i += 1) writeFileSync(join(spool(attack), entryName({ at: 1_000_000 + i, id: `a-b-${i}` })), '{}', { mode: 0o600 });
    const prompt = (text: string) => runHook({ ...attack.box.env, RECAP_HOOK_DEADLINE_MS: '4000' }, payload(attack, 'UserPromptSubmit', { prompt: text }));
    expect(noticeOf(await prompt('The last one that fits.'))).toContain(KEPT);
    const refused = noticeOf(await prompt('One too many.'));
    expect(refused).toContain(`could not be kept to be counted later (the spool already holds ${SPOOL_MAX_ENTRIES} prompts, the most it keeps), so it was not counted`);
    expect(spooled(attack)).toHaveLength(SPOOL_MAX_ENTRIES);

    // The cap in bytes: a file as large as the cap (sparse: it takes no disk) leaves no room.
    for (const name of spooled(attack)) rmSync(join(spool(attack), name));
    const big = join(spool(attack), entryName({ at: 1_000_000, id: 'a-b-big' }));
    writeFileSync(big, '', { mode: 0o600 });
    truncateSync(big, SPOOL_MAX_BYTES);
    expect(noticeOf(await prompt('Past the bytes.'))).toMatch(
      /could not be kept to be counted later \(the spool already holds \d+ KiB, and this prompt would take it past its \d+ MiB\)/,
    );
    rmSync(big);
    mend();
  });
});

describe('the spool holds what recap-hook did not write', () => {
  it('a malformed, foreign, linked or oversized entry is skipped with a log line and removed; the prompt beside them is recorded; the daemon goes on', async () => {
    const attack = await openGate(newBox(), start);
    const dir = spool(attack);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const at = Date.now();
    const good = {
      version: 1,
      id: 'a-b-good',
      agent: 'claude',
      at,
      payload: payload(attack, 'UserPromptSubmit', { prompt: 'Rename the fetchWithBackoff helper to retryFetch everywhere.' }),
    };
    writeFileSync(join(dir, entryName(good)), JSON.stringify(good), { mode: 0o600 });
    const bad: Record<string, string> = {
      [entryName({ at, id: 'a-b-notjson' })]: '{"version": 1, "id": ',
      [entryName({ at, id: 'a-b-agent' })]: JSON.stringify({ ...good, id: 'a-b-agent', agent: 'nobody' }),
      [entryName({ at, id: 'a-b-renamed' })]: JSON.stringify(good),
      [entryName({ at, id: 'a-b-tool' })]: JSON.stringify({ ...good, id: 'a-b-tool', payload: toolCall(attack, 'Read', { file_path: '/etc/hostname' }) }),
      'notes.txt': 'left here by a program',
    };
    for (const [name, text] of Object.entries(bad)) writeFileSync(join(dir, name), text, { mode: 0o600 });
    writeFileSync(join(attack.box.dir, 'elsewhere.json'), JSON.stringify({ ...good, id: 'a-b-link' }));
    symlinkSync(join(attack.box.dir, 'elsewhere.json'), join(dir, entryName({ at, id: 'a-b-link' })));
    const huge = join(dir, entryName({ at, id: 'a-b-huge' }));
    writeFileSync(huge, '');
    truncateSync(huge, SPOOL_MAX_BYTES + 1);

    const before = attack.daemon.lines.length;
    const taken = spoolTaken(attack.daemon);
    // A running daemon looks at its spool when it is continued, as after a stop.
    process.kill(attack.daemon.child.pid!, 'SIGCONT');
    expect(await taken).toMatchObject({ recorded: 1, skipped: 7 });
    const skips = attack.daemon.linesAfter(before).filter((l) => /^skipping a (file in the prompt spool|spooled prompt)/.test(l.msg));
    const messages = skips.map((l) => l.msg);
    expect(messages).toHaveLength(7);
    expect(messages).toEqual(
      expect.arrayContaining([
        'skipping a file in the prompt spool: it is not JSON',
        expect.stringContaining('skipping a file in the prompt spool: it is not a prompt recap-hook kept (agent:'),
        'skipping a file in the prompt spool: its id or time differs from its name',
        "skipping a spooled prompt: it is not a prompt of Claude Code's",
        'skipping a file in the prompt spool: its name is not one recap-hook gives',
        'skipping a file in the prompt spool: it is a link',
        expect.stringContaining('skipping a file in the prompt spool: it is larger than a prompt recap counts'),
      ]),
    );
    expect(readdirSync(dir)).toEqual([]);
    expect((await promptsRecorded(attack)).map((p) => p.text)).toEqual([good.payload.prompt]);
    const verified = await runCli(attack.box, ['verify']);
    expect(verified.code, verified.stderr).toBe(0);
    expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
  });
});

/** A prompt larger than the slack a full tmpfs leaves in the pages its files already hold. */
const FULL_DISK_PROMPT = Array.from({ length: 20 }, () => BIG_PROMPT).join('\n\n');

describe.runIf(MOUNT)('a prompt sent while the disk is full', () => {
  it("the event log's disk full, the data folder's not: the daemon keeps the prompt it could not record, and counts it once the disk has room", async () => {
    const box = newBox();
    mountTmpfs(join(box.data, 'log'), '2M');
    const attack = await openGate(box, start);
    const filler = fill(join(box.data, 'log'));
    // Through the launcher: the daemon takes the payload, cannot record it, and keeps it itself.
    const run = await launcherHook(attack, payload(attack, 'UserPromptSubmit', { prompt: FULL_DISK_PROMPT }));
    expect(noticeOf(run)).toContain(KEPT);
    expect(noticeOf(run)).toContain('could not be written');
    expect(spooled(attack)).toHaveLength(1);
    rmSync(filler);
    // The daemon looks at its spool every 30 s; continued (as after a stop), it looks at once.
    const taken = spoolTaken(attack.daemon);
    process.kill(attack.daemon.child.pid!, 'SIGCONT');
    expect(await taken).toMatchObject({ recorded: 1, tripped: true });
    expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
    await proveWayOut(attack);
  });

  it('the data folder full: the notice says the prompt could not be kept, and was not counted', async () => {
    const box = newBox();
    mountTmpfs(box.data, '4M');
    const attack = await openGate(box, start);
    const filler = fill(box.data);
    const run = await launcherHook(attack, payload(attack, 'UserPromptSubmit', { prompt: FULL_DISK_PROMPT }));
    expect(noticeOf(run)).toContain('this prompt could not be kept to be counted later (the disk is full), so it was not counted');
    rmSync(filler);
  });
});
