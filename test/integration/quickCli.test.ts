// `recap status`, `context`, `chain`, `replay --at` and `verify` in their plain forms run without yargs (quick.ts),
// from their bundle while it is current; the same commands with an option before the command
// go through yargs. Both must print and exit alike on a real daemon's log, job found by folder
// or --job, tripped or not, with summaries or none, and for a job that has no events.
import { cpSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickForm } from '../../src/client/quick.js';
import { closeSandbox, ROOT, runAsUser, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

describe('quickForm', () => {
  it('takes the plain forms of status, context and chain', () => {
    expect(quickForm(['status'])?.argv).toEqual({ json: false, debug: false, daemon: false });
    expect(quickForm(['status', '--json', '--job', 'a', '--daemon', '--debug'])?.argv).toEqual({ json: true, debug: true, daemon: true, job: 'a' });
    expect(quickForm(['chain', '--job=x y'])?.argv).toEqual({ json: false, debug: false, daemon: false, job: 'x y' });
    expect(quickForm(['context', '--json'])?.argv.json).toBe(true);
    expect(quickForm(['replay', '--at', '#12', '--json'])?.argv).toEqual({ json: true, debug: false, daemon: false, at: '#12' });
    expect(quickForm(['replay', '--job', 'a', '--at=10m ago'])?.argv).toEqual({ json: false, debug: false, daemon: false, job: 'a', at: '10m ago' });
  });

  it('leaves every other form to yargs', () => {
    for (const args of [
      [],
      ['--json', 'status'],
      ['record'],
      ['status', '--help'],
      ['status', '--version'],
      ['status', '--json', '--json'],
      ['status', '--json=true'],
      ['status', '--no-json'],
      ['status', '--job'],
      ['status', '--job', ''],
      ['status', '--job='],
      ['status', '--job', '--json'],
      ['status', '--job', 'a', '--job', 'b'],
      ['status', 'extra'],
      ['chain', '--daemon'],
      ['context', '-j'],
      ['replay'],
      ['replay', '--json'],
      ['replay', '--at'],
      ['replay', '--at='],
      ['replay', '--at', '-5'],
      ['replay', '--at', '1', '--at', '2'],
      ['replay', '--at', '1', '--daemon'],
      ['status', '--at', '1'],
      // Names an object has of its own kind, not commands or options.
      ['constructor'],
      ['toString'],
      ['status', 'constructor'],
      ['status', '__proto__'],
      ['replay', '--at', '1', 'hasOwnProperty'],
      ['verify', '--at', '1'],
      ['verify', '--daemon'],
    ]) {
      expect(quickForm(args), args.join(' ')).toBeUndefined();
    }
  });
});

describe('the quick path answers as yargs does', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
  });
  afterAll(async () => closeSandbox(box, daemon));

  /** The same command, plain (quick) and with its options first (yargs). */
  async function expectSame(command: string, options: string[]): Promise<void> {
    const quick = await runCli(box, [command, ...options]);
    const parsed = await runCli(box, ['--debug', ...options, command]);
    expect(quickForm([command, ...options])).toBeDefined();
    expect(quick).toEqual(parsed);
  }

  const forms = [[], ['--json'], ['--job', 'other'], ['--job=other', '--json'], ['--job', 'none']];

  it('with no events, after some, tripped, and with a summary on the chain', async () => {
    const states = [
      async () => {},
      async () => void (await runCli(box, ['record', '--text', prose(20)])),
      async () => void (await runCli(box, ['trip', '--reason', 'a test'])),
      async () => void (await runCli(box, ['submit'], { input: goodSummary() })),
    ];
    for (const reach of states) {
      await reach();
      await runCli(box, ['record', '--job', 'other', '--text', prose(5)]);
      for (const command of ['status', 'context', 'chain']) for (const options of forms) await expectSame(command, options);
    }
    const status = await runCli(box, ['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ summaries: 1 });
    for (const options of [
      ['--at', '#2'],
      ['--at=2', '--json'],
      ['--at', '#3', '--job', 'other'],
      ['--at', '2020-01-01T00:00:00Z', '--json'],
      ['--at', 'nonsense'],
      ['--at', '#999999', '--json'],
    ]) {
      await expectSame('replay', options);
    }
    for (const options of forms) await expectSame('verify', options);
    // 146 runs of the CLI, each at a terminal of its own on the fake macOS platform.
  }, 90_000);
});

describe('the plain forms from their bundle', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
  });
  afterAll(async () => closeSandbox(box, daemon));

  /** A copy of bin/ and dist/ (timestamps kept: the bundle is current), whose files the test may touch. */
  function packageCopy(): string {
    const root = join(box.dir, 'recap');
    for (const folder of ['bin', 'dist']) cpSync(join(ROOT, folder), join(root, folder), { recursive: true, preserveTimestamps: true });
    writeFileSync(join(root, 'package.json'), readFileSync(join(ROOT, 'package.json')));
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    return root;
  }

  /** `recap status --json` (or `args`) of the copy, and the copy's files it loaded as ES modules (a loader hook lists them). */
  async function statusLoading(root: string, run: number, args = ['status', '--json']): Promise<{ stdout: string; loaded: string[] }> {
    const log = join(box.dir, `loaded-${run}.txt`);
    const hook = join(box.dir, `hook-${run}.mjs`);
    const listing = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
    writeFileSync(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(listing)}`)});\n`);
    writeFileSync(log, '');
    const result = await runAsUser(box, [process.execPath, '--import', hook, join(root, 'bin', 'recap.js'), ...args]);
    expect(result.code, result.stderr).toBe(0);
    const prefix = `file://${root}/`;
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith(prefix))
      .map((url) => url.slice(prefix.length));
    return { stdout: result.stdout, loaded };
  }

  it('loads the bundle alone while it is current, and dist/ as compiled once a file it was made from is newer', async () => {
    const root = packageCopy();
    const bundled = await statusLoading(root, 1);
    expect(bundled.loaded).toEqual(['bin/recap.js', 'dist/client/quick.bundle.js']);
    expect((await statusLoading(root, 3, ['replay', '--at', '1', '--json'])).loaded).toEqual(['bin/recap.js', 'dist/client/quick.bundle.js']);
    expect((await statusLoading(root, 4, ['verify', '--json'])).loaded).toEqual(['bin/recap.js', 'dist/client/quick.bundle.js']);
    // As after a bare `tsc`: a file of the bundle's is newer than it.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'dist', 'client', 'jobCommands.js'), later, later);
    const compiled = await statusLoading(root, 2);
    expect(compiled.loaded).toContain('dist/client/jobCommands.js');
    expect(compiled.loaded).not.toContain('dist/client/quick.bundle.js');
    expect(JSON.parse(compiled.stdout)).toEqual(JSON.parse(bundled.stdout));
  }, 30_000);
});
