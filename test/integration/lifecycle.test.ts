// The daemon's life: start, permissions, stale sockets, a second daemon, restart, SIGTERM,
// SIGKILL, the log's format on disk, and being started by the CLI.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { unpack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { launchDaemon, RawClient, RECAP, runCli, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the daemon process', () => {
  it('creates the socket folder 0700 and the socket 0600, also where RECAP_SOCKET points somewhere new', async () => {
    const box = newBox();
    await start(box);
    expect(mode(join(box.dir, 'run', 'recap'))).toBe(0o700);
    expect(mode(box.socket)).toBe(0o600);

    const elsewhere = join(box.dir, 'new', 'place', 'd.sock');
    const other = newBox();
    await start(other, { RECAP_SOCKET: elsewhere });
    expect(mode(join(box.dir, 'new', 'place'))).toBe(0o700);
    expect(mode(elsewhere)).toBe(0o600);
  });

  it('keeps every event, the gate and the chain across a restart', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', prose(30)]);
    await runCli(box, ['submit'], { input: goodSummary() });
    await runCli(box, ['record', '--text', prose(30)]);
    const before = await runCli(box, ['status', '--json']);
    const chainBefore = await runCli(box, ['chain', '--json']);
    expect(await daemon.stop()).toBe(0);

    // Stopped with the sandbox, like every daemon a test starts.
    await start(box);
    expect((await runCli(box, ['status', '--json'])).stdout).toBe(before.stdout);
    expect((await runCli(box, ['chain', '--json'])).stdout).toBe(chainBefore.stdout);
    expect(JSON.parse(before.stdout)).toMatchObject({ tripped: true, summaries: 1 });
  });

  it('refuses to start a second daemon on the same log, naming it', async () => {
    const box = newBox();
    await start(box);
    const second = launchDaemon(box, { RECAP_SOCKET: join(box.dir, 'second.sock') });
    expect(await second.exited).toBe(1);
    expect(second.stderr.join('\n')).toContain(`recap: another recap daemon is using ${join(box.data, 'log')}`);
    expect(second.stderr.join('\n')).not.toContain('    at ');
  });

  it('refuses to take over a socket another live daemon answers on', async () => {
    const box = newBox();
    await start(box);
    const other = newBox();
    const second = launchDaemon(other, { RECAP_SOCKET: box.socket });
    expect(await second.exited).toBe(1);
    expect(second.stderr.join('\n')).toContain(`another recap daemon is listening on ${box.socket}`);
  });

  it('replaces a stale socket file left by a daemon that was killed', async () => {
    const box = newBox();
    const first = await start(box);
    await first.stop('SIGKILL');
    expect(existsSync(box.socket)).toBe(true);
    await start(box);
    const client = await RawClient.connect(box.socket);
    expect(await client.request({ id: 1, op: 'ping' })).toMatchObject({ result: {} });
    client.close();
  });

  it('on SIGTERM answers every request already received, then closes the log', async () => {
    const box = newBox();
    const daemon = await start(box);
    const client = await RawClient.connect(box.socket);
    const count = 300;
    client.sendBytes(
      Buffer.concat(
        Array.from({ length: count }, (_, id) => {
          const body = Buffer.from(JSON.stringify({ id, op: 'record', job: 'term', kind: 'prompt', text: `prompt number ${id}` }));
          const header = Buffer.alloc(4);
          header.writeUInt32BE(body.length, 0);
          return Buffer.concat([header, body]);
        }),
      ),
    );
    await client.received(1);
    daemon.child.kill('SIGTERM');
    const answers = await client.received(count);
    expect(answers.filter((a) => 'result' in a)).toHaveLength(count);
    expect(await daemon.exited).toBe(0);
    expect(existsSync(box.socket)).toBe(false);

    await start(box);
    const status = JSON.parse((await runCli(box, ['status', '--json', '--job', 'term'])).stdout);
    expect(status.unsummarizedInteractions).toBe(count);
  });

  it('loses no acknowledged event when killed with SIGKILL under concurrent writers', async () => {
    const box = newBox();
    const daemon = await start(box);
    const clients = await Promise.all(Array.from({ length: 16 }, () => RawClient.connect(box.socket)));
    const acknowledged: number[] = [];
    clients.forEach((client, c) => {
      for (let i = 0; i < 50; i += 1) client.send({ id: i, op: 'record', job: `kill-${c}`, kind: 'prompt', text: `writer ${c} prompt ${i}` });
    });
    await Promise.all(clients.map((client) => client.received(10)));
    await daemon.stop('SIGKILL');
    for (const client of clients) for (const frame of client.frames) if (frame.result) acknowledged.push((frame.result as { seq: number }).seq);
    expect(acknowledged.length).toBeGreaterThanOrEqual(160);

    await start(box);
    const checker = await RawClient.connect(box.socket);
    let present = 0;
    for (let c = 0; c < 16; c += 1) {
      const answer = await checker.request({ id: c, op: 'status', job: `kill-${c}` });
      present += (answer.result as { unsummarizedInteractions: number }).unsummarizedInteractions;
    }
    expect(present).toBeGreaterThanOrEqual(acknowledged.length);
    checker.close();
  });

  it('stores events under 8-byte big-endian keys as plain msgpack maps any reader can decode', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'hello log', '--job', 'format']);
    await daemon.stop();

    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const entries = await db.iterator().all();
    await db.close();
    expect(entries.every(([key]) => key.length === 8)).toBe(true);
    const seqs = entries.map(([key]) => Number(key.readBigUInt64BE(0)));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const events = entries.map(([, value]) => unpack(value) as { type: string; version: number; data: Record<string, unknown> });
    // The user's config, first seen: approved, then applied.
    expect(events.slice(0, 2)).toMatchObject([
      { type: 'ConfigApproved', version: 2 },
      { type: 'ConfigApplied', version: 1 },
    ]);
    expect(events.find((e) => e.type === 'InteractionRecorded')).toMatchObject({
      version: 2,
      data: { job: 'format', kind: 'prompt', text: 'hello log', counted: true, tokens: expect.any(Number), time: expect.any(Number) },
    });
  });

  it('is started in the background by the CLI when none is running, with its log under the data folder', async () => {
    const box = newBox();
    const result = await runCli(box, ['status', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ tripped: false });
    const logFile = join(box.data, 'recapd.log');
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pid: number; msg: string });
    const ready = lines.find((l) => l.msg === 'recap daemon ready');
    expect(ready).toBeDefined();
    expect(mode(logFile)).toBe(0o600);
    // Started as every way recap starts it (daemonStart.ts): Node's flags before recap, glibc's arenas capped
    // and its threshold for blocks mapped on their own fixed.
    expect(readFileSync(`/proc/${ready!.pid}/cmdline`, 'utf8').split('\0')).toEqual([process.execPath, '--max-semi-space-size=8', RECAP, 'daemon', '']);
    expect(readFileSync(`/proc/${ready!.pid}/environ`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=131072']));
    // The background daemon outlives the CLI; stop it like any other.
    const stopped = new Promise<void>((resolve) => {
      const watcher = spawn('tail', ['--pid', String(ready!.pid), '-f', '/dev/null']);
      watcher.once('exit', () => resolve());
    });
    process.kill(ready!.pid, 'SIGTERM');
    await stopped;
  });
});
