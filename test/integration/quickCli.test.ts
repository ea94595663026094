// `recap status`, `context` and `chain` in their plain forms run without yargs (main.ts's
// quick path); the same commands with an option before the command go through yargs. Both
// must print and exit alike on a real daemon's log, job found by folder or --job, tripped
// or not, with summaries or none, and for a job that has no events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickForm } from '../../src/client/main.js';
import { closeSandbox, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

describe('quickForm', () => {
  it('takes the plain forms of status, context and chain', () => {
    expect(quickForm(['status'])?.argv).toEqual({ json: false, debug: false, daemon: false });
    expect(quickForm(['status', '--json', '--job', 'a', '--daemon', '--debug'])?.argv).toEqual({ json: true, debug: true, daemon: true, job: 'a' });
    expect(quickForm(['chain', '--job=x y'])?.argv).toEqual({ json: false, debug: false, daemon: false, job: 'x y' });
    expect(quickForm(['context', '--json'])?.argv.json).toBe(true);
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
    // 124 runs of the CLI, each at a terminal of its own on the fake macOS platform.
  }, 90_000);
});
