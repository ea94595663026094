// Faults: disk full during a write (a small tmpfs), a read-only data folder, corrupted
// LevelDB files, a config edited to garbage while running, the socket file deleted under a
// running daemon, the clock going backwards. Each gives a clear error, loses no acknowledged
// data, and recovers once the fault is gone.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchDaemon, RawClient, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { allEvents, call, sleep } from './harness.js';
import { canMount, mountTmpfs as mountOn } from '../helpers/tmpfs.js';

/** Text that does not compress (LevelDB compresses): random hex in short words. */
const noise = (chars: number) =>
  (
    randomBytes(Math.ceil(chars / 2))
      .toString('hex')
      .match(/.{1,12}/g) ?? []
  ).join(' ');

const MOUNT = canMount();
if (!MOUNT) console.warn('[faults] mount is not permitted here: the disk-full and read-only tests are skipped');

const FAKETIME_LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'].find(existsSync);
if (!FAKETIME_LIB) console.warn('[faults] libfaketime is not installed (apt-get install faketime): the clock test is skipped');

/** A daemon that fails to start: its exit code and its stderr. */
async function failedStart(box: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const daemon = launchDaemon(box, env);
  const outcome = await Promise.race([
    daemon.exited.then((code) => ({ code })),
    daemon.waitForLog((l) => l.msg === 'recap daemon ready').then(() => undefined),
    sleep(10_000).then(() => undefined),
  ]);
  if (!outcome) {
    await daemon.stop('SIGKILL');
    throw new Error('the daemon started (or hung) when it should have refused');
  }
  return { code: outcome.code, stderr: daemon.stderr.join('\n') };
}

/** A clear error: some words, and no stack trace. */
const expectClear = (stderr: string) => {
  expect(stderr.trim().length).toBeGreaterThan(0);
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
};

async function recordAll(client: RawClient, job: string, texts: string[]) {
  const acked = new Map<number, string>();
  const errors: Record<string, unknown>[] = [];
  for (const text of texts) {
    const answer = await call(client, 'record', { job, kind: 'prompt', text });
    if ('error' in answer) errors.push(answer.error as Record<string, unknown>);
    else acked.set((answer.result as { seq: number }).seq, text);
  }
  return { acked, errors };
}

async function expectAllThere(box: Sandbox, acked: Map<number, string>) {
  const client = await RawClient.connect(box.socket);
  const bySeq = new Map((await allEvents(client)).map((e) => [e.seq, e]));
  for (const [seq, text] of acked) expect(bySeq.get(seq)?.data.text, `#${seq}`).toBe(text);
  const verify = (await call(client, 'verify', {}, 30_000)).result as { ok: boolean; problems: unknown[] };
  expect(verify.problems).toEqual([]);
  client.close();
}

describe('faults', () => {
  let box: Sandbox;
  let daemon: DaemonProcess | undefined;
  const mounts: string[] = [];

  const mountTmpfs = (dir: string, size: string) => {
    mountOn(dir, size);
    mounts.push(dir);
  };

  beforeAll(() => undefined);
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    for (const dir of mounts.splice(0)) spawnSync('umount', ['-l', dir]);
    if (box) removeSandbox(box);
  });
  afterAll(() => undefined);

  it.runIf(MOUNT)('disk full: answers with a clear storage error and keeps serving', { timeout: 20_000 }, async () => {
    box = sandbox();
    mountTmpfs(box.data, '2M');
    daemon = await startDaemon(box);
    const client = await RawClient.connect(box.socket);
    const errors: unknown[] = [];
    for (let i = 0; i < 12 && errors.length === 0; i += 1) {
      const answer = await call(client, 'record', { job: 'full', kind: 'prompt', text: `fill-${i} ${noise(300_000)}` }, 5000);
      if ('error' in answer) errors.push(answer.error);
    }
    expect(errors[0]).toMatchObject({ code: 'storage', message: expect.stringContaining('could not be written') });
    expect((await call(client, 'ping', {}, 2000)).result).toBeDefined();
    // Space comes back: the same daemon writes again.
    execFileSync('mount', ['-o', 'remount,size=64M', box.data]);
    const after = await recordAll(client, 'full', ['after the disk was freed']);
    client.close();
    expect(after.errors).toEqual([]);
  });

  it.runIf(MOUNT)('disk full: no acknowledged event lost once space returns and the daemon restarts', { timeout: 30_000 }, async () => {
    box = sandbox();
    mountTmpfs(box.data, '8M');
    daemon = await startDaemon(box);
    let client = await RawClient.connect(box.socket);
    const acked = new Map<number, string>();
    let outcome = 'no fault seen';
    expect((await call(client, 'ping', {}, 2000)).result).toBeDefined();
    for (let i = 0; i < 120; i += 1) {
      const text = `fill-${i} ${noise(100_000)}`;
      try {
        const answer = await call(client, 'record', { job: 'full', kind: 'prompt', text }, 2500);
        if ('error' in answer) {
          outcome = `error ${JSON.stringify(answer.error)}`;
          break;
        }
        acked.set((answer.result as { seq: number }).seq, text);
      } catch (error) {
        outcome = (error as Error).message;
        break;
      }
    }
    console.log(`[faults] disk full: ${acked.size} acknowledged, then: ${outcome.slice(0, 200)}`);
    expect(acked.size).toBeGreaterThan(0);
    client.socket.destroy();
    await daemon.stop('SIGKILL');
    execFileSync('mount', ['-o', 'remount,size=64M', box.data]);
    daemon = await startDaemon(box);
    client = await RawClient.connect(box.socket);
    const after = await recordAll(client, 'full', ['after the disk was freed and the daemon restarted']);
    client.close();
    expect(after.errors).toEqual([]);
    for (const [seq, text] of after.acked) acked.set(seq, text);
    await expectAllThere(box, acked);
  });

  it.runIf(MOUNT)('read-only data folder: a clear start error, then starts with the data intact once writable', { timeout: 30_000 }, async () => {
    box = sandbox();
    mountTmpfs(box.data, '16M');
    daemon = await startDaemon(box);
    let client = await RawClient.connect(box.socket);
    const { acked } = await recordAll(client, 'ro', [prose(2), prose(3)]);
    client.close();
    await daemon.stop();
    daemon = undefined;
    execFileSync('mount', ['-o', 'remount,ro', box.data]);
    const failed = await failedStart(box);
    expect(failed.code).not.toBe(0);
    expectClear(failed.stderr);
    execFileSync('mount', ['-o', 'remount,rw', box.data]);
    daemon = await startDaemon(box);
    client = await RawClient.connect(box.socket);
    const after = await recordAll(client, 'ro', ['writable again']);
    client.close();
    expect(after.errors).toEqual([]);
    await expectAllThere(box, new Map([...acked, ...after.acked]));
  });

  it('corrupted LevelDB files: a clear start error, and the backup restored starts again', { timeout: 30_000 }, async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    const client = await RawClient.connect(box.socket);
    const { acked } = await recordAll(client, 'corrupt', [prose(2), prose(3), prose(4)]);
    client.close();
    await daemon.stop();
    daemon = undefined;
    const log = join(box.data, 'log');
    const backup = join(box.dir, 'log-backup');
    cpSync(log, backup, { recursive: true });
    for (const corrupt of [
      () => writeFileSync(join(log, 'CURRENT'), 'garbage\n'),
      () => {
        const manifest = readdirSync(log).find((f) => f.startsWith('MANIFEST-'))!;
        writeFileSync(join(log, manifest), Buffer.alloc(64, 0xab));
      },
    ]) {
      rmSync(log, { recursive: true, force: true });
      cpSync(backup, log, { recursive: true });
      corrupt();
      const failed = await failedStart(box);
      expect(failed.code).not.toBe(0);
      expectClear(failed.stderr);
    }
    rmSync(log, { recursive: true, force: true });
    cpSync(backup, log, { recursive: true });
    daemon = await startDaemon(box);
    await expectAllThere(box, acked);
  });

  it.runIf(MOUNT)('read-only data folder and corrupted log: the start error names the folder and the cause', { timeout: 30_000 }, async () => {
    box = sandbox();
    mountTmpfs(box.data, '16M');
    daemon = await startDaemon(box);
    await daemon.stop();
    daemon = undefined;
    execFileSync('mount', ['-o', 'remount,ro', box.data]);
    const readOnly = await failedStart(box);
    expect(readOnly.stderr).toContain(box.data);
    expect(readOnly.stderr).toMatch(/read-only|EROFS/i);
    execFileSync('mount', ['-o', 'remount,rw', box.data]);
    writeFileSync(join(box.data, 'log', 'CURRENT'), 'garbage\n');
    const corrupt = await failedStart(box);
    expect(corrupt.stderr).toContain(box.data);
    expect(corrupt.stderr).toMatch(/corrupt|damaged/i);
  });

  it('config edited to garbage while running: keeps the last good config, says so, recovers on a good edit', async () => {
    box = sandbox();
    writeFileSync(box.config, 'TOKEN_THRESHOLD=700\n');
    daemon = await startDaemon(box);
    const client = await RawClient.connect(box.socket);
    const { acked } = await recordAll(client, 'cfg', [prose(2)]);
    writeFileSync(box.config, '\u0000\u00ff garbage ((( TOKEN_THRESHOLD=banana\nREQUIRED_SECTIONS=(\n');
    const marker = daemon.lines.length;
    daemon.child.kill('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration re-read' && daemon!.lines.indexOf(l) >= marker);
    const status = (await call(client, 'status', { job: 'cfg' })).result as { threshold: number; configProblems?: string[] };
    expect(status.threshold).toBe(700);
    expect(status.configProblems?.length).toBeGreaterThan(0);
    const more = await recordAll(client, 'cfg', [prose(1)]);
    expect(more.errors).toEqual([]);
    const cli = await runCli(box, ['status']);
    expect(cli.stdout + cli.stderr).toMatch(/config/i);
    // A stricter value applies at once (a weaker one would wait for the user's approval).
    writeFileSync(box.config, 'TOKEN_THRESHOLD=600\n');
    const marker2 = daemon.lines.length;
    daemon.child.kill('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration re-read' && daemon!.lines.indexOf(l) >= marker2);
    const fixed = (await call(client, 'status', { job: 'cfg' })).result as { threshold: number; configProblems?: string[] };
    expect(fixed.threshold).toBe(600);
    expect(fixed.configProblems).toBeUndefined();
    client.close();
    await expectAllThere(box, new Map([...acked, ...more.acked]));
  });

  it('socket file deleted: connected clients keep being served', async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    const client = await RawClient.connect(box.socket);
    unlinkSync(box.socket);
    expect((await call(client, 'ping')).result).toMatchObject({ version: expect.any(String) });
    client.close();
  });

  it('socket file deleted: the daemon recreates it for new clients', { timeout: 15_000 }, async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    unlinkSync(box.socket);
    for (let waited = 0; waited < 5000 && !existsSync(box.socket); waited += 200) await sleep(200);
    const client = await RawClient.connect(box.socket);
    expect((await call(client, 'ping')).result).toMatchObject({ version: expect.any(String) });
    client.close();
  });

  it('socket file deleted: a second daemon refuses with a clear error (the log is locked)', { timeout: 15_000 }, async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    unlinkSync(box.socket);
    const failed = await failedStart(box);
    expect(failed.code).not.toBe(0);
    expectClear(failed.stderr);
    expect(failed.stderr).toMatch(/another recap daemon/);
  });

  it.runIf(FAKETIME_LIB !== undefined)('clock going backwards: records and summaries still work, verify passes', { timeout: 30_000 }, async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    let client = await RawClient.connect(box.socket);
    const first = await recordAll(client, 'clock', [prose(15), prose(15)]);
    const accepted = (await call(client, 'submit', { job: 'clock', text: goodSummary() })).result as { accepted?: boolean };
    expect(accepted.accepted).toBe(true);
    client.close();
    await daemon.stop();
    // Back two days.
    daemon = await startDaemon(box, { LD_PRELOAD: FAKETIME_LIB, FAKETIME: '-2d', FAKETIME_DONT_FAKE_MONOTONIC: '1' });
    client = await RawClient.connect(box.socket);
    const back = await recordAll(client, 'clock', [prose(15), prose(15)]);
    expect(back.errors).toEqual([]);
    const status = (await call(client, 'status', { job: 'clock' })).result as { tripped: boolean };
    expect(status.tripped).toBe(true);
    const again = (await call(client, 'submit', { job: 'clock', text: goodSummary(undefined, 1) })).result as { accepted?: boolean };
    expect(again.accepted).toBe(true);
    const events = await allEvents(client);
    const times = events.map((e) => e.data.time).filter((t): t is number => typeof t === 'number');
    expect(Math.min(...times.slice(-3))).toBeLessThan(Math.max(...times.slice(0, 3)));
    const chain = (await call(client, 'chain', { job: 'clock' })).result as { entries: unknown[] };
    expect(chain.entries.length).toBe(2);
    const replay = await call(client, 'replay', { atTime: Date.now() - 86_400_000 });
    expect(replay.error).toBeUndefined();
    client.close();
    await expectAllThere(box, new Map([...first.acked, ...back.acked]));
  });
});
