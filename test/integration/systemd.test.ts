// recap's systemd user units: `recap install systemd` writes them with this installation's
// paths, `systemd-analyze verify` accepts them, and the daemon takes a socket handed over
// by socket activation (fd 3). Needs Debian's systemd package (systemd-analyze,
// systemd-socket-activate); without it these tests fail and say so, they never skip.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonProcess, RawClient, RECAP, removeSandbox, ROOT, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';

/** Fails the test with a message saying what to install when a systemd tool is missing. */
function need(tool: 'systemd-analyze' | 'systemd-socket-activate'): void {
  const probe = spawnSync(tool, ['--version'], { encoding: 'utf8' });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(`${tool} is not installed: install Debian's systemd package (apt-get install systemd) to run the systemd tests`);
  }
  if (probe.status !== 0) throw new Error(`${tool} --version failed (${probe.status}): ${probe.stderr}`);
}

const boxes: Sandbox[] = [];
const daemons: DaemonProcess[] = [];
function newBox(): Sandbox {
  const box = sandbox();
  boxes.push(box);
  return box;
}
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop('SIGKILL')));
  for (const box of boxes.splice(0)) removeSandbox(box);
});

const quote = (path: string) => (/\s/.test(path) ? `"${path}"` : path);

async function installUnits(box: Sandbox): Promise<{ service: string; socket: string }> {
  const result = await runCli(box, ['install', 'systemd', '--json']);
  expect(result.code, result.stderr).toBe(0);
  const dir = join(box.env.XDG_CONFIG_HOME!, 'systemd', 'user');
  const service = join(dir, 'recap.service');
  const socket = join(dir, 'recap.socket');
  expect(JSON.parse(result.stdout)).toEqual({ files: [service, socket] });
  return { service, socket };
}

describe('recap install systemd', () => {
  it('writes recap.service and recap.socket to $XDG_CONFIG_HOME/systemd/user, ExecStart naming this node and bin/recap.js', async () => {
    const box = newBox();
    const { service, socket } = await installUnits(box);
    const unit = readFileSync(service, 'utf8');
    const execStarts = unit.split('\n').filter((l) => l.startsWith('ExecStart='));
    // Node's flags and the environment recap gives its daemon (daemonStart.ts).
    expect(execStarts).toEqual([`ExecStart=${quote(process.execPath)} --max-semi-space-size=8 ${quote(RECAP)} daemon`]);
    expect(unit.split('\n').filter((l) => l.startsWith('Environment='))).toEqual(['Environment=MALLOC_ARENA_MAX=2', 'Environment=MALLOC_MMAP_THRESHOLD_=131072']);
    expect(RECAP).toBe(join(ROOT, 'bin', 'recap.js'));
    expect(unit).toContain('Requires=recap.socket');
    // The socket unit is the one shipped, unchanged.
    expect(readFileSync(socket, 'utf8')).toBe(readFileSync(join(ROOT, 'systemd', 'recap.socket'), 'utf8'));
    // Installing again leaves the same files.
    await installUnits(box);
    expect(readFileSync(service, 'utf8')).toBe(unit);
  });

  it('writes units that systemd-analyze --user verify accepts', async () => {
    need('systemd-analyze');
    const box = newBox();
    const { service, socket } = await installUnits(box);
    // A user manager needs its runtime folder (%t); in a container there is no user session.
    mkdirSync(box.env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
    const verify = spawnSync('systemd-analyze', ['--user', 'verify', service, socket], {
      env: { ...box.env, SYSTEMD_LOG_COLOR: '0', SYSTEMD_PAGER: 'cat' },
      encoding: 'utf8',
    });
    const output = `${verify.stdout}${verify.stderr}`;
    const aboutRecap = output.split('\n').filter((l) => /recap\.(service|socket)/.test(l));
    expect(aboutRecap, output).toEqual([]);
    expect(verify.status, output).toBe(0);

    // The check has teeth: the same service with an ExecStart that cannot run is refused.
    const brokenDir = join(box.dir, 'broken');
    mkdirSync(brokenDir);
    const broken = join(brokenDir, 'recap.service');
    writeFileSync(broken, readFileSync(service, 'utf8').replace(/^ExecStart=.*$/m, `ExecStart=${join(box.dir, 'no-such-node')} daemon`));
    writeFileSync(join(brokenDir, 'recap.socket'), readFileSync(socket, 'utf8'));
    const refused = spawnSync('systemd-analyze', ['--user', 'verify', broken], { env: { ...box.env, SYSTEMD_LOG_COLOR: '0' }, encoding: 'utf8' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/recap\.service.*no-such-node/);
  });
});

describe('recap doctor', () => {
  it("passes the unit recap install systemd wrote, fails one an older recap wrote (without the daemon's start settings), and passes again once installed", async () => {
    const box = newBox();
    const systemdLine = async () => {
      const doctor = await runCli(box, ['doctor', '--json']);
      return (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'systemd');
    };
    expect(await systemdLine()).toMatchObject({ ok: true, detail: expect.stringMatching(/^no systemd unit/) });

    const { service } = await installUnits(box);
    expect(await systemdLine()).toEqual({ name: 'systemd', ok: true, detail: `starts this recap's daemon as recap install systemd writes it; ${service}` });

    // What recap install systemd wrote before the daemon had start settings.
    const unit = readFileSync(service, 'utf8');
    writeFileSync(service, unit.replace(/^ExecStart=.*$/m, `ExecStart=${quote(process.execPath)} ${quote(RECAP)} daemon`).replace(/^Environment=.*\n/gm, ''));
    const stale = await systemdLine();
    expect(stale).toMatchObject({
      ok: false,
      fix: expect.stringMatching(/^recap install systemd, then systemctl --user daemon-reload && systemctl --user restart recap\.service/),
    });
    expect(stale!.detail).toContain('missing: ExecStart=');
    expect(stale!.detail).toContain('Environment=MALLOC_ARENA_MAX=2; Environment=MALLOC_MMAP_THRESHOLD_=131072');

    await installUnits(box);
    expect(await systemdLine()).toMatchObject({ ok: true });
  });
});

describe('socket activation', () => {
  it('the daemon takes the socket systemd-socket-activate hands it as fd 3 and answers on it', async () => {
    need('systemd-socket-activate');
    const box = newBox();
    // The folder a systemd .socket unit makes with DirectoryMode=0700.
    mkdirSync(join(box.dir, 'run', 'recap'), { recursive: true, mode: 0o700 });
    // systemd-socket-activate passes on only PATH, HOME, USER and TERM, plus what -E names.
    const setenv = Object.entries(box.env).flatMap(([key, value]) => (value === undefined ? [] : ['-E', `${key}=${value}`]));
    const child = spawn('systemd-socket-activate', ['-l', box.socket, ...setenv, process.execPath, RECAP, 'daemon'], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const daemon = new DaemonProcess(box, child);
    daemons.push(daemon);
    const listening = new Promise<void>((resolve) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer | string) => {
        seen += chunk.toString();
        if (seen.includes(`Listening on ${box.socket}`)) resolve();
      });
    });
    const outcome = await Promise.race([listening.then(() => 'listening' as const), daemon.exited.then(() => 'exited' as const)]);
    expect(outcome, daemon.stderr.join('\n')).toBe('listening');

    // The first connection makes systemd-socket-activate exec the daemon, which takes fd 3.
    const client = await RawClient.connect(box.socket);
    const pong = await client.request({ id: 1, op: 'ping' });
    expect(pong).toMatchObject({ id: 1, result: { version: expect.any(String) } });
    client.close();
    const ready = await daemon.waitForLog((l) => l.msg === 'recap daemon ready');
    expect(ready.socket).toBe('fd 3');
    expect(ready.pid).toBe(child.pid);

    // The CLI works through the activated socket too.
    const status = await runCli(box, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ tripped: false });

    expect(await daemon.stop('SIGTERM')).toBe(0);
    expect(daemon.lines.some((l) => l.msg === 'recap daemon stopped')).toBe(true);
  });
});

describe('recap uninstall systemd', () => {
  it('removes the units and the links systemctl enable made, and says what to run next', async () => {
    const box = newBox();
    const { service, socket } = await installUnits(box);
    const dir = join(box.env.XDG_CONFIG_HOME!, 'systemd', 'user');
    // What `systemctl --user enable recap.socket recap.service` leaves behind.
    const links = [join(dir, 'sockets.target.wants', 'recap.socket'), join(dir, 'default.target.wants', 'recap.service')];
    mkdirSync(join(dir, 'sockets.target.wants'));
    mkdirSync(join(dir, 'default.target.wants'));
    symlinkSync(socket, links[0]!);
    symlinkSync(service, links[1]!);
    writeFileSync(join(dir, 'other.service'), '[Service]\nExecStart=/bin/true\n');

    const result = await runCli(box, ['uninstall', 'systemd']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`removed ${links[1]} and ${service} and ${links[0]} and ${socket}\n`);
    expect(result.stdout).toContain('next: systemctl --user stop recap.socket recap.service && systemctl --user daemon-reload');
    for (const file of [service, socket, ...links]) expect(existsSync(file), file).toBe(false);
    expect(existsSync(join(dir, 'other.service'))).toBe(true);

    const again = await runCli(box, ['uninstall', 'systemd']);
    expect(again.stdout).toBe("recap's systemd units were not installed; nothing changed\n");
  });

  it("leaves a recap.service that is not recap's, and says so", async () => {
    const box = newBox();
    const dir = join(box.env.XDG_CONFIG_HOME!, 'systemd', 'user');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'recap.service'), '[Service]\nExecStart=/usr/bin/someone-else\n');
    const result = await runCli(box, ['uninstall', 'systemd']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`recap: ${join(dir, 'recap.service')} is not recap's unit; recap left it and removed nothing\n`);
    expect(existsSync(join(dir, 'recap.service'))).toBe(true);
  });

  it('is refused in an agent shell', async () => {
    const box = newBox();
    await installUnits(box);
    const result = await runCli(box, ['uninstall', 'systemd'], { env: { CLAUDECODE: '1' } });
    expect(result.code).toBe(1);
    expect(existsSync(join(box.env.XDG_CONFIG_HOME!, 'systemd', 'user', 'recap.service'))).toBe(true);
  });
});

describe('an empty XDG_CONFIG_HOME', () => {
  it('is treated as unset: the units go to ~/.config/systemd/user, not ./systemd/user', async () => {
    const box = newBox();
    const result = await runCli(box, ['install', 'systemd', '--json'], { env: { XDG_CONFIG_HOME: '' } });
    expect(result.code, result.stderr).toBe(0);
    const dir = join(box.env.HOME!, '.config', 'systemd', 'user');
    expect(JSON.parse(result.stdout)).toEqual({ files: [join(dir, 'recap.service'), join(dir, 'recap.socket')] });
    expect(existsSync(join(box.project, 'systemd'))).toBe(false);
  });
});
