// The daemon's life from the command line, through the real CLI and a real daemon:
// recap status --daemon, stop, restart, reload; a daemon that runs but cannot be reached is
// said to be so and no second one is started; a second daemon names the PID that holds the
// log, and recap restart takes over from it; errors that are not the log's do not say so.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, launchDaemon, ON_FAKE_MACOS, RawClient, RECAP, runCli, trackedSandboxes, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';

const tracked = trackedSandboxes(afterEach);
const { start } = tracked;

const mode = (path: string) => statSync(path).mode & 0o777;
const pidFile = (box: Sandbox) => join(box.data, 'recapd.pid');

/**
 * Every daemon of a sandbox, the ones the CLI started in the background too (not children of
 * this test): the processes whose environment names its data folder. A daemon a command
 * spawned while another was starting may still be loading when the test ends.
 */
function daemonsOf(box: Sandbox): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RECAP_DATA_DIR=${box.data}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

// Registered after trackedSandboxes' own: runs before it removes the folders.
const boxes: Sandbox[] = [];
const newBox = (): Sandbox => {
  const box = tracked.newBox();
  boxes.push(box);
  return box;
};
afterEach(() => {
  for (const pid of boxes.splice(0).flatMap(daemonsOf)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** A daemon the test started and no one else: it logged that it stopped and exited 0. */
async function expectStopped(daemon: DaemonProcess): Promise<void> {
  expect(await daemon.exited).toBe(0);
  expect(daemon.lines.some((l) => l.msg === 'recap daemon stopped')).toBe(true);
}

describe('recap status --daemon', () => {
  it('shows the PID, version, uptime, socket, data folder, log size and events of the running daemon', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'one prompt']);
    const json = await runCli(box, ['status', '--daemon', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const state = JSON.parse(json.stdout);
    expect(state).toMatchObject({
      running: true,
      pid: daemon.child.pid,
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      socket: box.socket,
      dataDir: box.data,
      // The user's config file approved when first seen, the user-wide configuration, the prompt.
      eventLog: { path: join(box.data, 'log'), events: 3 },
      config: box.config,
    });
    expect(state.eventLog.bytes).toBeGreaterThan(0);
    expect(Date.now() - state.started).toBeGreaterThanOrEqual(0);

    const human = await runCli(box, ['status', '--daemon']);
    expect(human.stdout).toMatch(new RegExp(`^recap daemon running, PID ${daemon.child.pid}, recap \\d+\\.\\d+\\.\\d+ \\(Node v[\\d.]+\\), up \\d+s$`, 'm'));
    expect(human.stdout).toContain(`socket       ${box.socket}\n`);
    expect(human.stdout).toContain(`data folder  ${box.data}\n`);
    expect(human.stdout).toMatch(/^event log {4}3 events, [\d.]+ kB/m);
  });

  it('with no daemon says it is not running, exits 1, and starts none', async () => {
    const box = newBox();
    const result = await runCli(box, ['status', '--daemon']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('not running');
    expect(existsSync(box.socket)).toBe(false);
    expect(existsSync(join(box.data, 'recapd.log'))).toBe(false);
  });

  it('in a folder removed under the shell (no job to resolve) shows the daemon; other commands say the folder is gone', async () => {
    const box = newBox();
    const daemon = await start(box);
    mkdirSync(join(box.dir, 'gone'));
    // The shell cds into the folder, removes it, then runs recap there.
    const inGone = (args: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile('sh', ['-c', `cd gone && rmdir "$PWD" && exec "${process.execPath}" "${RECAP}" ${args}`], { cwd: box.dir, env: box.env }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const status = await inGone('status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`recap daemon running, PID ${daemon.child.pid}`);
    mkdirSync(join(box.dir, 'gone'));
    const context = await inGone('context');
    expect(context.code).toBe(1);
    expect(context.stderr).toBe('recap: the current folder no longer exists (it was removed); cd to a folder that does, or give --job\n');
    mkdirSync(join(box.dir, 'gone'));
    const named = await inGone('status --job named --json');
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ job: 'named' });
  });
});

describe('recap stop, restart and reload', () => {
  it('recap stop ends the daemon after it answers, removes its pid file; a second stop has nothing to stop', async () => {
    const box = newBox();
    const daemon = await start(box);
    const record = JSON.parse(readFileSync(pidFile(box), 'utf8'));
    expect(record).toMatchObject({ pid: daemon.child.pid, socket: box.socket });
    expect(mode(pidFile(box))).toBe(0o600);

    const stopped = await runCli(box, ['stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe(`stopped the recap daemon (PID ${daemon.child.pid})\n`);
    await expectStopped(daemon);
    expect(existsSync(pidFile(box))).toBe(false);
    expect(existsSync(box.socket)).toBe(false);

    const again = await runCli(box, ['stop']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`no recap daemon is running on ${box.data}; nothing to stop\n`);
  });

  it('recap restart stops the daemon and starts a new one, with every event kept', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'kept across the restart']);
    const restarted = await runCli(box, ['restart', '--json']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const { stopped, now } = JSON.parse(restarted.stdout);
    expect(stopped).toEqual({ stopped: true, pid: daemon.child.pid, by: 'socket', systemd: false });
    await expectStopped(daemon);
    expect(now.pid).not.toBe(daemon.child.pid);
    expect(now.eventLog.events).toBeGreaterThanOrEqual(2);
    const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
    expect(status.unsummarizedInteractions).toBe(1);
  });

  it('recap reload re-reads the config; a broken one is reported, exit 1, the last good one kept', async () => {
    const box = newBox();
    await start(box);
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout).threshold).toBe(500);
    // Stricter than the defaults in force: it applies at once.
    writeFileSync(box.config, 'TOKEN_THRESHOLD=400\n');
    const reloaded = await runCli(box, ['reload']);
    expect(reloaded.code, reloaded.stderr).toBe(0);
    expect(reloaded.stdout).toBe(`the daemon re-read ${box.config}\n`);
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout).threshold).toBe(400);

    writeFileSync(box.config, 'TOKEN_THRESHOLD=lots\n');
    const broken = await runCli(box, ['reload']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${box.config}:1: TOKEN_THRESHOLD`);
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout).threshold).toBe(400);
  });

  it("are the user's: refused in an agent's shell, the daemon left running", async () => {
    const box = newBox();
    const daemon = await start(box);
    for (const command of [['stop'], ['restart'], ['reload'], ['doctor', '--fix']]) {
      const refused = await runCli(box, command, { env: { CLAUDECODE: '1' } });
      expect(refused.code, command.join(' ')).toBe(1);
      expect(refused.stderr).toContain(`recap ${command.join(' ')} is the user's to run, from their own terminal, and it came from process node`);
      expect(refused.stderr).toContain("which is an agent's (CLAUDECODE is set for node");
    }
    const client = await RawClient.connect(box.socket);
    expect(await client.request({ id: 1, op: 'ping' })).toMatchObject({ result: { version: expect.any(String) } });
    client.close();
    expect(daemon.child.exitCode).toBeNull();
  });
});

describe('a daemon that runs but cannot be reached from this shell', () => {
  it('is reported with its PID and socket, and no second daemon is started', async () => {
    const box = newBox();
    const daemon = await start(box);
    // Another shell, whose socket path differs (no XDG_RUNTIME_DIR there, say).
    const elsewhere = join(box.dir, 'elsewhere', 'recapd.sock');
    const result = await runCli(box, ['status'], { env: { RECAP_SOCKET: elsewhere } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`a recap daemon runs on ${box.data} (PID ${daemon.child.pid}, recap `);
    expect(result.stderr).toContain(`listening on ${box.socket}), but this shell looks for it on ${elsewhere}`);
    expect(result.stderr).toContain(`set RECAP_SOCKET=${box.socket} here`);
    expect(existsSync(elsewhere)).toBe(false);
    expect(existsSync(join(box.data, 'recapd.log'))).toBe(false);

    const state = await runCli(box, ['status', '--daemon', '--json'], { env: { RECAP_SOCKET: elsewhere } });
    expect(state.code).toBe(1);
    expect(JSON.parse(state.stdout)).toMatchObject({ running: false, socket: elsewhere, problem: expect.stringContaining(`PID ${daemon.child.pid}`) });

    const doctor = await runCli(box, ['doctor'], { env: { RECAP_SOCKET: elsewhere } });
    expect(doctor.stdout).toMatch(new RegExp(`^FAIL  daemon .*PID ${daemon.child.pid}`, 'm'));
  });

  it('recap restart from that shell stops it by its PID and starts one on this shell’s socket', async () => {
    const box = newBox();
    const daemon = await start(box);
    const elsewhere = join(box.dir, 'elsewhere', 'recapd.sock');
    const restarted = await runCli(box, ['restart', '--json'], { env: { RECAP_SOCKET: elsewhere } });
    expect(restarted.code, restarted.stderr).toBe(0);
    const { stopped, now } = JSON.parse(restarted.stdout);
    expect(stopped).toMatchObject({ stopped: true, pid: daemon.child.pid, by: 'signal' });
    await expectStopped(daemon);
    expect(now.socket).toBe(elsewhere);
  });

  it('a socket path taken by a file that is not a socket is said to be so', async () => {
    const box = newBox();
    mkdirSync(join(box.dir, 'run', 'recap'), { recursive: true, mode: 0o700 });
    writeFileSync(box.socket, 'not a socket');
    const result = await runCli(box, ['status']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`recap: ${box.socket} is a regular file, not recap's socket: something else took the path; move it aside, or point RECAP_SOCKET elsewhere\n`);
  });

  it('a socket path another program listens on: the daemon refuses it, naming it not recap', async () => {
    const box = newBox();
    mkdirSync(join(box.dir, 'run', 'recap'), { recursive: true, mode: 0o700 });
    const other: Server = createServer((socket) => socket.on('data', () => undefined));
    await new Promise<void>((resolve) => other.listen(box.socket, resolve));
    try {
      const daemon = launchDaemon(box);
      expect(await daemon.exited).toBe(1);
      expect(daemon.stderr.join('\n')).toContain(`recap: a program that is not recap listens on ${box.socket}`);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe('a second daemon on the same data folder', () => {
  it('commands that find no daemon at the same moment all get the one that starts; none fails on its lock', async () => {
    const box = newBox();
    const results = await Promise.all(Array.from({ length: 6 }, () => runCli(box, ['status', '--json'])));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(join(box.data, 'recapd.log'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; pid: number });
    const ready = lines.filter((l) => l.msg === 'recap daemon ready');
    expect(ready).toHaveLength(1);
  });

  it('refuses to start, naming the PID and socket of the one that holds the log', async () => {
    const box = newBox();
    const first = await start(box);
    const second = launchDaemon(box, { RECAP_SOCKET: join(box.dir, 'second.sock') });
    expect(await second.exited).toBe(1);
    const said = second.stderr.join('\n');
    expect(said).toContain(`recap: another recap daemon is using ${join(box.data, 'log')}: PID ${first.child.pid}, recap `);
    expect(said).toContain(`listening on ${box.socket}; stop it with recap stop (kill ${first.child.pid} if it cannot be reached), or take over with recap restart`);
  });

  it('after an upgrade (a daemon that wrote no pid file, on another socket): found by its lock, and recap restart takes over', async () => {
    const box = newBox();
    const old = join(box.dir, 'old.sock');
    const first = await start(box, { RECAP_SOCKET: old });
    rmSync(pidFile(box));

    const second = launchDaemon(box);
    expect(await second.exited).toBe(1);
    const restarted = await runCli(box, ['restart', '--json']);
    if (ON_FAKE_MACOS) {
      // macOS tells a lock's holder through lsof alone: where it cannot, the log is said to be in use, and nothing is stopped.
      const inUse = `another recap daemon is using ${join(box.data, 'log')}; stop it, then start again`;
      expect(second.stderr.join('\n')).toContain(inUse);
      expect(restarted.stdout).toContain(inUse);
      expect(first.child.exitCode).toBeNull();
      return;
    }
    expect(second.stderr.join('\n')).toContain(`PID ${first.child.pid}, which wrote no pid file`);
    expect(restarted.code, restarted.stderr).toBe(0);
    const { stopped, now } = JSON.parse(restarted.stdout);
    expect(stopped).toMatchObject({ stopped: true, pid: first.child.pid, by: 'signal' });
    await expectStopped(first);
    expect(now.socket).toBe(box.socket);
  });
});

describe('errors that are not the event log’s', () => {
  it('the HTTP port taken is said as that, not as "the event log could not be written"', async () => {
    const box = newBox();
    const port = await freePort();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen({ port, host: '127.0.0.1' }, resolve));
    try {
      await start(box, { RECAP_HTTP_PORT: String(port) });
      const client = await RawClient.connect(box.socket);
      const answer = await client.request({ id: 1, op: 'http' });
      client.close();
      const error = answer.error as { code: string; message: string };
      expect(error.code).toBe('refused');
      expect(error.message).toContain(`port ${port} on 127.0.0.1 is taken by another program`);
      expect(error.message).not.toContain('event log');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("recap's folders", () => {
  it('recap import makes the data folder and the log 0700', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'to export']);
    const file = join(box.dir, 'export.jsonl');
    expect((await runCli(box, ['export', '--out', file])).code).toBe(0);
    await daemon.stop();

    const copy = newBox();
    const imported = await runCli(copy, ['import', file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(mode(copy.data)).toBe(0o700);
    expect(mode(join(copy.data, 'log'))).toBe(0o700);
  });
});
