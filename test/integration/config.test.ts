// config.conf against the real daemon: read at start, re-read on SIGHUP, a broken file
// reported with file, line and key while the last good configuration stays in force.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { unpack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';

const boxes: Sandbox[] = [];
const daemons: DaemonProcess[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop('SIGKILL')));
  for (const box of boxes.splice(0)) removeSandbox(box);
});

async function setup(config: string, env: NodeJS.ProcessEnv = {}): Promise<{ box: Sandbox; daemon: DaemonProcess }> {
  const box = sandbox();
  boxes.push(box);
  writeFileSync(box.config, config);
  const daemon = await startDaemon(box, env);
  daemons.push(daemon);
  return { box, daemon };
}

const status = async (box: Sandbox) => JSON.parse((await runCli(box, ['status', '--json'])).stdout);

/** Sends SIGHUP and waits until the daemon has logged that it re-read its files. */
async function reload(daemon: DaemonProcess): Promise<void> {
  const seen = daemon.lines.length;
  const reread = daemon.waitForLog((l) => l.msg === 'configuration re-read' && daemon.lines.indexOf(l) >= seen);
  daemon.child.kill('SIGHUP');
  await reread;
}

async function configEvents(
  box: Sandbox,
  type = 'ConfigApplied',
): Promise<{ job?: string; values: Record<string, unknown>; sources: Record<string, string>; by?: string; hash?: string }[]> {
  const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const values = await db.values().all();
  await db.close();
  return values
    .map((v) => unpack(v))
    .filter((e) => e.type === type)
    .map((e) => e.data);
}

describe('config.conf', () => {
  it('reads the shell syntax, with the environment winning through ${KEY:-default}', async () => {
    const { box } = await setup(['# recap settings', 'TOKEN_THRESHOLD="${TOKEN_THRESHOLD:-800}"', 'SUMMARY_MIN_TOKENS=100', 'REQUIRED_SECTIONS=("Goal" "Next Steps")'].join('\n'), {
      TOKEN_THRESHOLD: '1234',
    });
    expect(await status(box)).toMatchObject({ threshold: 1234 });
    const context = await runCli(box, ['context', '--job', 'x']);
    expect(context.code).toBe(0);
  });

  it('reports a broken file with file, line and key on SIGHUP and keeps the last good configuration', async () => {
    const { box, daemon } = await setup('TOKEN_THRESHOLD=50\n');
    expect(await status(box)).toMatchObject({ threshold: 50 });

    writeFileSync(box.config, '# changed\nTOKEN_THRESHOLD=lots\n');
    await reload(daemon);
    const problem = daemon.lines.find((l) => typeof l.problem === 'string');
    expect(problem?.problem).toBe(`${box.config}:2: TOKEN_THRESHOLD: must be a whole number, 1 or more; got "lots"`);
    expect(problem?.level).toBe(50);
    const current = await status(box);
    expect(current.threshold).toBe(50);
    expect(current.configProblems).toEqual([`${box.config}:2: TOKEN_THRESHOLD: must be a whole number, 1 or more; got "lots"`]);
    const human = await runCli(box, ['status']);
    expect(human.stderr).toContain('the last good configuration is in force');

    // A stricter value applies at once (a weaker one would wait for recap config allow --user).
    writeFileSync(box.config, 'TOKEN_THRESHOLD=40\n');
    await reload(daemon);
    const fixed = await status(box);
    expect(fixed.threshold).toBe(40);
    expect(fixed.configProblems).toBeUndefined();
  });

  it('names an unknown key and an out-of-range value in the same round, each with its line', async () => {
    const { box, daemon } = await setup('TOKEN_THRESHOLD=50\n');
    writeFileSync(box.config, 'TOKEN_TRESHOLD=50\nMIN_TOKENS_PER_SECTION=-4\n');
    await reload(daemon);
    expect((await status(box)).configProblems).toEqual([
      expect.stringMatching(new RegExp(`^${box.config}:1: TOKEN_TRESHOLD: unknown key`)),
      `${box.config}:2: MIN_TOKENS_PER_SECTION: must be a whole number, 0 or more; got -4`,
    ]);
  });

  it('starts on the last good configuration recorded in the log when the file is broken at start', async () => {
    const { box, daemon } = await setup('TOKEN_THRESHOLD=60\n');
    await daemon.stop();
    writeFileSync(box.config, 'TOKEN_THRESHOLD=(oops\n');
    const again = await startDaemon(box);
    daemons.push(again);
    const current = await status(box);
    expect(current.threshold).toBe(60);
    expect(current.configProblems[0]).toContain(`${box.config}:1: TOKEN_THRESHOLD:`);
  });

  it('lets a project file override the user file for that project only, once the user approves what weakens the gate', async () => {
    const { box } = await setup('TOKEN_THRESHOLD=300\n');
    mkdirSync(join(box.project, '.recap'), { recursive: true });
    writeFileSync(join(box.project, '.recap', 'config.conf'), 'TOKEN_THRESHOLD=900\n');
    expect(await status(box)).toMatchObject({ threshold: 300, configPending: { held: [{ key: 'TOKEN_THRESHOLD', from: 300, to: 900 }] } });
    expect((await runCli(box, ['config', 'allow'])).code).toBe(0);
    expect(await status(box)).toMatchObject({ threshold: 900 });
    const outside = JSON.parse((await runCli(box, ['status', '--json'], { cwd: box.dir })).stdout);
    expect(outside.threshold).toBe(300);
  });

  it('records the configuration in force, with where each value came from, when it changes', async () => {
    const { box, daemon } = await setup('TOKEN_THRESHOLD=300\n');
    await reload(daemon);
    writeFileSync(box.config, 'TOKEN_THRESHOLD=200\n');
    await reload(daemon);
    await daemon.stop();
    const events = await configEvents(box);
    expect(events.map((e) => e.values.TOKEN_THRESHOLD)).toEqual([300, 200]);
    expect(events[1]!.sources.TOKEN_THRESHOLD).toBe(`${box.config}:1`);
    expect(events[1]!.sources.SUMMARY_MIN_TOKENS).toBe('default');
  });

  it("takes the user's file as approved the first time, holds a later weakening of it, and applies it on recap config allow --user", async () => {
    const { box, daemon } = await setup('TOKEN_THRESHOLD=300\n');
    writeFileSync(box.config, 'TOKEN_THRESHOLD=900\n');
    await reload(daemon);
    const held = await status(box);
    expect(held).toMatchObject({
      threshold: 300,
      userConfigPending: { file: box.config, held: [{ key: 'TOKEN_THRESHOLD', from: 300, to: 900 }], command: 'recap config allow --user' },
    });
    expect((await runCli(box, ['status'])).stdout).toContain('recap config allow --user');
    const allowed = await runCli(box, ['config', 'allow', '--user']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('TOKEN_THRESHOLD: 300 -> 900 (weakens the gate)');
    expect(await status(box)).toMatchObject({ threshold: 900 });
    expect((await status(box)).userConfigPending).toBeUndefined();
    await daemon.stop();
    expect((await configEvents(box, 'ConfigApproved')).map((e) => [e.by, e.values.TOKEN_THRESHOLD])).toEqual([
      ['firstSeen', 300],
      ['allow', 900],
    ]);
  });
});
