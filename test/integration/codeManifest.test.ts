// The manifest of recap's installed code, end to end: `recap install` records it in the data
// folder, `recap daemon` refuses to start when a file changed (naming it and the fix) and
// starts again once the user records the code anew, and without a manifest it starts and says
// its code is unverified. A copy of the package (bin, dist, package.json; node_modules as links
// to the repo's packages, pino copied) is what is changed: never the repo's own files.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectAllowed, outputOf } from '../helpers/gateAttack.js';
import { deniedReason } from '../helpers/hookAnswers.js';
import { readCodeManifest } from '../../src/common/codeManifest.js';
import type { CodeManifest } from '../../src/events/codeManifest.js';
import { DaemonProcess, removeSandbox, ROOT, runAsUser, runCli, sandbox, sandboxWithDaemon, type CliResult, type Sandbox } from '../helpers/daemon.js';

/** A copy of recap's package in `dir`: what `npm install -g .` in a clone leaves (its "files"), whose files a test may change. */
function packageCopy(dir: string): string {
  const root = join(dir, 'recap');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  // Timestamps kept: bin/recap.js runs the daemon bundle only while no file it was built from is newer.
  for (const folder of ['bin', 'dist', 'systemd', 'claude-plugin']) cpSync(join(ROOT, folder), join(root, folder), { recursive: true, preserveTimestamps: true });
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'pino') cpSync(join(ROOT, 'node_modules', name), join(root, 'node_modules', name), { recursive: true });
    else symlinkSync(join(ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
  return root;
}

type Installed = { box: Sandbox; recap: string; manifest: string };

/** recap's CLI from the installed copy. */
function cli(at: Installed, args: string[]): Promise<CliResult> {
  return runAsUser(at.box, [process.execPath, join(at.recap, 'bin', 'recap.js'), ...args]);
}

/** `recap daemon` of the copy, as autostart and systemd run it. */
function launch(at: Installed, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  const child = spawn(process.execPath, [join(at.recap, 'bin', 'recap.js'), 'daemon'], { env: { ...at.box.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new DaemonProcess(at.box, child);
}

/** Resolves once the daemon is ready, or with what it said when it exited instead. */
async function outcome(daemon: DaemonProcess): Promise<{ ready: true } | { ready: false; code: number | null; said: string }> {
  const ready = daemon.waitForLog((l) => l.msg === 'recap daemon ready').then(() => ({ ready: true as const }));
  const exited = daemon.exited.then((code) => ({ ready: false as const, code, said: daemon.stderr.join('\n') }));
  return Promise.race([ready, exited]);
}

const daemons: DaemonProcess[] = [];
const boxes: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()));
  for (const box of boxes.splice(0)) removeSandbox(box);
});

/** A sandbox (its own HOME, data folder, socket) with a copy of recap that `recap install claude` recorded. */
async function installed(): Promise<Installed> {
  const box = sandbox();
  boxes.push(box);
  const at = { box, recap: packageCopy(box.dir), manifest: join(box.data, 'code-manifest.json') };
  const result = await cli(at, ['install', 'claude']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return at;
}

async function started(at: Installed, env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const daemon = launch(at, env);
  daemons.push(daemon);
  expect(await outcome(daemon)).toEqual({ ready: true });
  return daemon;
}

async function refused(at: Installed, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const daemon = launch(at, env);
  daemons.push(daemon);
  const result = await outcome(daemon);
  expect(result.ready).toBe(false);
  expect(result).toMatchObject({ code: 1 });
  return (result as { said: string }).said;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('recap install records the code, and the daemon checks it at start', () => {
  it('records every file the daemon and the hook load, in the data folder; the daemon then starts and says its code is verified', async () => {
    const at = await installed();
    expect(statSync(at.manifest).mode & 0o777).toBe(0o600);
    const manifest = readCodeManifest(at.manifest) as CodeManifest;
    expect(manifest.root).toBe(at.recap);
    expect(manifest.installedBy).toBe('claude');
    for (const name of [
      'package.json',
      'bin/recap.js',
      'bin/recap-hook.sh',
      'bin/recap-hook.cjs',
      'dist/daemon/daemon.bundle.js',
      'dist/client/hookFallback.cjs',
      'dist/client/quick.bundle.js',
      'node_modules/pino/pino.js',
    ]) {
      expect(manifest.files[name]?.[0], name).toBe(sha256(join(at.recap, name)));
    }
    // The packages the bundle imports and theirs, where Node loads them from (the repo's, through the links).
    const names = Object.keys(manifest.files);
    for (const dependency of ['level', 'classic-level', 'msgpackr', 'sonic-boom', 'gpt-tokenizer', '@opentelemetry/sdk-metrics', 'yargs', 'zod']) {
      expect(names.some((n) => n.endsWith(`node_modules/${dependency}/package.json`))).toBe(true);
    }
    // A dependency's README is listed by name, not hashed: Node never loads it.
    expect(manifest.files['node_modules/pino/README.md']).toEqual(['', '']);
    // The token vocabularies the daemon reads (what it counts decides when the gate trips) are hashed like code.
    for (const encoding of ['o200k_base', 'cl100k_base']) {
      const name = names.find((n) => n.endsWith(`node_modules/gpt-tokenizer/data/${encoding}.tiktoken`));
      expect(name, encoding).toBeDefined();
      expect(manifest.files[name!]![0]).toBe(sha256(join(at.recap, name!)));
    }

    await started(at);
    const status = await cli(at, ['status', '--daemon']);
    expect(status.stdout).toMatch(new RegExp(`^code +verified at start: ${names.length} files as recap install recorded them \\(${at.manifest}\\)$`, 'm'));
    const doctor = await cli(at, ['doctor']);
    expect(doctor.stdout).toMatch(/^ok +code +\d+ files as recap install recorded them/m);
  });

  it('code added to a dependency: the daemon refuses to start, names the file and the fix, and the added code never runs until the user records it', async () => {
    const at = await installed();
    const mark = join(at.box.dir, 'pino-ran');
    appendFileSync(join(at.recap, 'node_modules', 'pino', 'pino.js'), "\nrequire('node:fs').writeFileSync(process.env.RECAP_TEST_MARK, 'ran')\n");

    const said = await refused(at, { RECAP_TEST_MARK: mark });
    expect(said).toContain(
      "recap: recap's code has changed since `recap install claude` recorded it (1 file: node_modules/pino/pino.js (changed)), so the recap daemon will not start",
    );
    expect(said).toContain('run `recap install claude` again in your own terminal');
    expect(said).toContain('reinstall recap (in its clone: git status shows what changed; npm install builds it again; then npm link)');
    expect(existsSync(mark)).toBe(false);
    // Nothing of the daemon's: it never took the log.
    expect(existsSync(join(at.box.data, 'log'))).toBe(false);

    const doctor = await cli(at, ['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL +code +recap's code has changed since `recap install claude` recorded it \(1 file: node_modules\/pino\/pino\.js \(changed\)\)/m);
    expect(doctor.stdout).toContain('      fix: recap install claude again, in your own terminal, if you upgraded or changed recap yourself');
    // Starting the daemon is no fix while its code is refused, and the launcher's socket is not missing: there is no daemon to make it.
    expect(doctor.stdout).toMatch(/^FAIL +daemon .*\n +fix: it will not start until recap's code is recorded again: see code above$/m);
    expect(doctor.stdout).toMatch(/^ok +hook launcher +.*; the daemon makes .*recapd\.http\.sock when it starts$/m);

    // The fix it names: once the user records the code as it is, the daemon starts, and runs it.
    expect((await cli(at, ['install', 'claude'])).code).toBe(0);
    await started(at, { RECAP_TEST_MARK: mark });
    expect(readFileSync(mark, 'utf8')).toBe('ran');
  });

  it('with the bundle made stale (a file it was built from touched), the daemon from dist/ refuses all the same, before the changed code runs', async () => {
    const at = await installed();
    const mark = join(at.box.dir, 'pino-ran');
    appendFileSync(join(at.recap, 'node_modules', 'pino', 'pino.js'), "\nrequire('node:fs').writeFileSync(process.env.RECAP_TEST_MARK, 'ran')\n");
    // bin/recap.js then runs the daemon through the CLI from dist/daemon/daemon.js, which imports pino too.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(at.recap, 'dist', 'common', 'paths.js'), later, later);

    expect(await refused(at, { RECAP_TEST_MARK: mark })).toContain('(1 file: node_modules/pino/pino.js (changed))');
    expect(existsSync(mark)).toBe(false);
  });

  it('a file added beside a dependency\'s code (require("./lib/tools") finds "lib/tools" first): refused, the file named; recorded anew, it starts', async () => {
    const at = await installed();
    writeFileSync(join(at.recap, 'node_modules', 'pino', 'lib', 'tools'), "module.exports = require('./tools.js')\n");
    expect(await refused(at)).toContain('(1 file: node_modules/pino/lib/tools (added))');
    expect((await cli(at, ['install', 'claude'])).code).toBe(0);
    await started(at);
  });

  it('a recap command that starts the daemon (as the hook does) says why it could not', async () => {
    const at = await installed();
    appendFileSync(join(at.recap, 'dist', 'daemon', 'daemon.bundle.js'), '\n// changed\n');
    const status = await cli(at, ['status']);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('the recap daemon exited at start (code 1): ');
    expect(status.stderr).toContain('(1 file: dist/daemon/daemon.bundle.js (changed))');
  });

  it("the user's recap install again records the changed code, says it did, and the daemon starts", async () => {
    const at = await installed();
    appendFileSync(join(at.recap, 'dist', 'daemon', 'daemon.bundle.js'), '\n// changed\n');
    expect(await refused(at)).toContain('dist/daemon/daemon.bundle.js (changed)');

    const again = await cli(at, ['install', 'claude']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      `recap: warning: recap's code did not match the manifest in ${at.manifest} (1 file, dist/daemon/daemon.bundle.js); it now records the code as it is.`,
    );
    await started(at);
  });

  it('an upgrade (npm i -g recap@next): the message says so, and recap install again is the fix', async () => {
    const at = await installed();
    const file = join(at.recap, 'package.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"version": "[^"]+"/, '"version": "99.0.0"'));
    const said = await refused(at);
    expect(said).toMatch(/recap: recap's code is version 99\.0\.0 now, but `recap install claude` recorded version \d+\.\d+\.\d+ \(1 file: package\.json \(changed\)\)/);
    expect(said).toContain('If you upgraded recap, run `recap install claude` again in your own terminal: it records the new code.');
    expect((await cli(at, ['install', 'claude'])).code).toBe(0);
    await started(at);
  });

  it('a manifest an earlier recap wrote (one line, format 1): refused with what to run; recap install again records it anew and the daemon starts', async () => {
    const at = await installed();
    const earlier = { format: 1, written: 0, installedBy: 'claude', root: at.recap, recap: '0.0.9', folders: { '.': { stat: '', hashed: {}, listed: [] } } };
    writeFileSync(at.manifest, `${JSON.stringify(earlier)}\n`);
    const said = await refused(at);
    expect(said).toContain(`the manifest of recap's code at ${at.manifest} cannot be read (written by an earlier recap, in a form this one does not read)`);
    expect(said).toContain('run recap install <agent> again to record the code as it is now');
    const again = await cli(at, ['install', 'claude']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      `recap: warning: the manifest in ${at.manifest} could not be read (written by an earlier recap, in a form this one does not read); it now records recap's code as it is.`,
    );
    await started(at);
  });

  it('a manifest with a hash taken out of its second line: once the code changed, that file is named as added, never taken as recorded', async () => {
    const at = await installed();
    const [head, rest] = readFileSync(at.manifest, 'utf8').split('\n');
    const hashes = JSON.parse(rest!) as { sha256: Record<string, Record<string, string>> };
    delete hashes.sha256.bin!['recap.js'];
    writeFileSync(at.manifest, `${head}\n${JSON.stringify(hashes)}\n`);
    appendFileSync(join(at.recap, 'dist', 'daemon', 'daemon.bundle.js'), '\n// changed\n');
    expect(await refused(at)).toContain('(2 files: dist/daemon/daemon.bundle.js (changed), bin/recap.js (added))');
  });

  it('recap install systemd records it too', async () => {
    const box = sandbox();
    boxes.push(box);
    const at = { box, recap: packageCopy(box.dir), manifest: join(box.data, 'code-manifest.json') };
    const result = await cli(at, ['install', 'systemd']);
    expect(result.code, result.stderr).toBe(0);
    expect(readCodeManifest(at.manifest)).toMatchObject({ installedBy: 'systemd', root: at.recap });
  });
});

describe('without a manifest (never installed: a dev run, a test)', () => {
  it('the daemon starts, and status --daemon and doctor say its code is unverified', async () => {
    const { box, daemon } = await sandboxWithDaemon();
    boxes.push(box);
    daemons.push(daemon);
    const status = await runCli(box, ['status', '--daemon']);
    expect(status.stdout).toContain(`code         UNVERIFIED: no manifest of recap's code at ${join(box.data, 'code-manifest.json')} (recap install <agent> writes it)`);
    const doctor = await runCli(box, ['doctor']);
    expect(doctor.stdout).toMatch(/^FAIL +code +unverified: no manifest of recap's code at .*; the daemon starts without checking it$/m);
    expect(doctor.stdout).toContain('      fix: recap install <agent> again, in your own terminal: it records the code');
  });
});

/** `recap-hook claude` of the copy, as Claude Code runs it, with one payload. */
async function hook(at: Installed, payload: Record<string, unknown>): Promise<CliResult> {
  const child = spawn(process.execPath, [join(at.recap, 'bin', 'recap-hook.cjs'), 'claude'], { cwd: at.box.project, env: at.box.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const run = outputOf(child);
  child.stdin.end(JSON.stringify(payload));
  const { exitCode, stdout, stderr } = await run;
  return { code: exitCode, stdout, stderr };
}

describe('recap-hook while the daemon cannot start because the code changed', () => {
  it('denies a tool call with what the user must do (ON_DAEMON_DOWN=open notwithstanding), and lets the way out through', async () => {
    const at = await installed();
    appendFileSync(join(at.recap, 'node_modules', 'pino', 'pino.js'), '\n// changed\n');
    const call = (command: string) => ({ hook_event_name: 'PreToolUse', session_id: 's1', cwd: at.box.project, tool_name: 'Bash', tool_input: { command } });

    const denied = await hook(at, call('ls'));
    expect(denied.code).toBe(0);
    const reason = deniedReason({ stdout: denied.stdout, exitCode: denied.code! });
    expect(reason).toMatch(
      /^recap: the recap daemon cannot start, so every tool but recap's own commands is denied: recap's code has changed since `recap install claude` recorded it \(1 file: node_modules\/pino\/pino\.js \(changed\)\)/,
    );
    expect(reason).toContain('run `recap install claude` again in your own terminal');

    // The way out is never locked: recap's own command, by the launcher's path, is not denied for this.
    const wayOut = await hook(at, call(`${join(at.box.data, 'bin', 'recap')} status`));
    expectAllowed({ ...wayOut, exitCode: wayOut.code });

    // Once the user records the code (an upgrade they made), the hook reaches a daemon again.
    expect((await cli(at, ['install', 'claude'])).code).toBe(0);
    const allowed = await hook(at, call('ls'));
    expectAllowed({ ...allowed, exitCode: allowed.code });
    expect(allowed.stdout).not.toContain('cannot start');
    await cli(at, ['stop']);
  });
});
