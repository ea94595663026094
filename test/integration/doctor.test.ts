// `recap doctor` through the real CLI: one line per check, a fix for each failure, exit 1
// when anything fails, and it never starts a daemon itself.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockSocketPath, removeSandbox, ROOT, runCli, sandbox, type DaemonProcess, type Sandbox, closeSandbox, sandboxWithDaemon, trackedSandboxes } from '../helpers/daemon.js';
import { AGENT_NAMES } from '../../src/agents/known.js';
import { launcherSocketPath } from '../../src/common/paths.js';

type Check = { name: string; ok: boolean; detail: string; fix?: string };

const settingsFile = (box: Sandbox) => join(box.dir, '.claude', 'settings.json');

/** The check lines of the human output: each `ok` or `FAIL`, then its name. */
function checkLines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '' && !l.startsWith('      fix: '));
}

/** The output block of one failing check: its line and its fix line. */
function failure(stdout: string, name: string): { line: string; fix: string | undefined } {
  const lines = stdout.split('\n');
  const index = lines.findIndex((l) => new RegExp(`^FAIL  ${name.replace(' ', '\\s')}\\s`).test(l));
  expect(index, `no FAIL line for ${name} in:\n${stdout}`).toBeGreaterThanOrEqual(0);
  const next = lines[index + 1];
  return { line: lines[index]!, fix: next?.startsWith('      fix: ') ? next.slice('      fix: '.length) : undefined };
}

const FIX = `recap install <agent>, the agent one of: ${AGENT_NAMES.join(', ')}`;

describe('recap doctor with a daemon running', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => ({ box, daemon } = await sandboxWithDaemon()));
  afterAll(() => closeSandbox(box, daemon));
  beforeEach(async () => {
    writeFileSync(box.config, '# mine\nTOKEN_THRESHOLD="${TOKEN_THRESHOLD:-600}"\nBYPASS_PREFIXES=("[PLUGIN-LOCK]")\n');
    rmSync(join(box.dir, '.claude'), { recursive: true, force: true });
    rmSync(join(box.project, '.recap'), { recursive: true, force: true });
    const installed = await runCli(box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
  });

  it('with everything right exits 0 and every line starts with ok', async () => {
    const result = await runCli(box, ['doctor']);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^ok\s/);
    const names = lines.map((l) => l.slice(6, 19).trim());
    expect(names).toEqual(expect.arrayContaining(['node', 'daemon', 'hook launcher', 'socket', 'data', 'config', 'claude hooks']));
    expect(result.stdout).toMatch(/^ok\s+daemon\s+running, version \d+\.\d+\.\d+, on /m);
    expect(result.stdout).toContain(box.socket);
    expect(result.stdout).toMatch(new RegExp(`^ok\\s+config\\s+valid: ${box.config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    expect(result.stdout).toMatch(new RegExp(`^ok\\s+claude hooks\\s+command hooks in ${settingsFile(box).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  });

  it('--json gives every check as data', async () => {
    const result = await runCli(box, ['doctor', '--json']);
    expect(result.code).toBe(0);
    const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
    expect(checks.length).toBeGreaterThanOrEqual(6);
    for (const check of checks) {
      expect(check).toEqual({ name: expect.any(String), ok: true, detail: expect.any(String) });
    }
    expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining(['node', 'daemon', 'socket', 'socket folder', 'data', 'config', 'claude hooks']));
  });

  it('with the hooks not installed in any agent: FAIL hooks, fix: recap install <agent>, exit 1', async () => {
    expect((await runCli(box, ['uninstall', 'claude'])).code).toBe(0);
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'hooks');
    expect(line).toContain('recap is not installed in any agent');
    expect(fix).toBe(FIX);
    expect(result.stdout).toContain(`      fix: ${FIX}\n`);
    // Only the hooks fail.
    expect(checkLines(result.stdout).filter((l) => l.startsWith('FAIL'))).toEqual([line]);

    const json = JSON.parse((await runCli(box, ['doctor', '--json'])).stdout) as { checks: Check[] };
    expect(json.checks.find((c) => c.name === 'hooks')).toEqual({
      name: 'hooks',
      ok: false,
      detail: 'recap is not installed in any agent',
      fix: FIX,
    });
  });

  it('with only some hooks installed: FAIL hooks naming the missing events', async () => {
    const settings = JSON.parse(readFileSync(settingsFile(box), 'utf8'));
    delete settings.hooks.SessionStart;
    delete settings.hooks.UserPromptSubmit;
    writeFileSync(settingsFile(box), JSON.stringify(settings));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'claude hooks');
    expect(line).toContain('no UserPromptSubmit hook');
    expect(line).toContain('no SessionStart hook');
    expect(fix).toMatch(/^recap install claude/);
  });

  it('with a broken user config: FAIL config naming the file and the line', async () => {
    writeFileSync(box.config, '# mine\nTOKEN_THRESHOLD=lots\nSUMMARY_MIN_TOKENS=200\n');
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'config');
    expect(line).toContain(`${box.config}:2: TOKEN_THRESHOLD: must be a whole number, 1 or more; got "lots"`);
    expect(fix).toBeDefined();
    expect(checkLines(result.stdout).filter((l) => l.startsWith('FAIL'))).toEqual([line]);
  });

  it('with an unknown key in the project config: FAIL config naming that file and line', async () => {
    const file = join(box.project, '.recap', 'config.conf');
    mkdirSync(join(box.project, '.recap'), { recursive: true });
    writeFileSync(file, 'TOKEN_THRESHOLD=300\n\nTOKEN_TRESHOLD=400\n');
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line } = failure(result.stdout, 'config');
    expect(line).toContain(`${file}:3: TOKEN_TRESHOLD: unknown key (did you mean TOKEN_THRESHOLD?); known keys are `);
    expect(line).toContain('and in your user config only EVAL_MODEL_URL, EVAL_MODEL_KEY, EVAL_MODEL');
  });

  it('with a hook command pointing to a missing executable: FAIL hooks naming it', async () => {
    const missing = join(box.dir, 'gone', 'recap-hook.sh');
    const text = readFileSync(settingsFile(box), 'utf8');
    const real = join(ROOT, 'bin', 'recap-hook.sh');
    expect(text).toContain(`/bin/sh ${real} ${process.execPath} claude`);
    writeFileSync(settingsFile(box), text.replaceAll(real, missing));
    // (The hook command is `/bin/sh <launcher> <node> claude`: the launcher is the missing one here.)
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'claude hooks');
    expect(line).toContain(`${missing} does not exist`);
    expect(line).toContain(`PreToolUse in ${settingsFile(box)}`);
    expect(fix).toMatch(/^recap install claude/);
    // The fix it names repairs it.
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    expect((await runCli(box, ['doctor'])).code).toBe(0);
  });

  it('with a missing executable whose path has spaces (single-quoted): FAIL hooks naming the path', async () => {
    const missing = join(box.dir, 'my tools', 'recap-hook.sh');
    const real = join(ROOT, 'bin', 'recap-hook.sh');
    const text = readFileSync(settingsFile(box), 'utf8');
    writeFileSync(settingsFile(box), text.replaceAll(real, `'${missing}'`));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    expect(failure(result.stdout, 'claude hooks').line).toContain(`${missing} does not exist`);
  });

  it('with an older install whose hook command lets PATH find node: FAIL hooks saying so', async () => {
    const real = join(ROOT, 'bin', 'recap-hook.cjs');
    const launched = `/bin/sh ${join(ROOT, 'bin', 'recap-hook.sh')} ${process.execPath} claude`;
    const text = readFileSync(settingsFile(box), 'utf8');
    expect(text).toContain(launched);
    writeFileSync(settingsFile(box), text.replaceAll(launched, `${real} claude`));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'claude hooks');
    expect(line).toContain('does not name node by absolute path');
    expect(fix).toMatch(/^recap install claude/);
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    expect((await runCli(box, ['doctor'])).code).toBe(0);
  });

  it('with a PreToolUse hook that lost onFailure: FAIL hooks saying a failing hook lets the tool run', async () => {
    const text = readFileSync(settingsFile(box), 'utf8');
    expect(text).toContain('"onFailure": "block"');
    writeFileSync(settingsFile(box), text.replace(/,\s*"onFailure": "block"/, ''));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    expect(failure(result.stdout, 'claude hooks').line).toContain('no onFailure: "block"');
  });

  it('with a Claude Code older than 2.1.295 on PATH: FAIL claude code, the gate fails open', async () => {
    const bin = join(box.dir, 'old-claude');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), "#!/bin/sh\necho '2.1.200 (Claude Code)'\n", { mode: 0o755 });
    const old = await runCli(box, ['doctor'], { env: { PATH: `${bin}:${box.env.PATH ?? ''}` } });
    expect(old.code).toBe(1);
    const { line, fix } = failure(old.stdout, 'claude code');
    expect(line).toContain('2.1.200: a failing hook lets the tool run (the gate fails open)');
    expect(fix).toContain('2.1.295 or newer');
    writeFileSync(join(bin, 'claude'), "#!/bin/sh\necho '2.1.330 (Claude Code)'\n", { mode: 0o755 });
    const current = await runCli(box, ['doctor'], { env: { PATH: `${bin}:${box.env.PATH ?? ''}` } });
    expect(current.code).toBe(0);
    expect(current.stdout).toMatch(/^ok\s+claude code\s+2\.1\.330/m);
  });

  it('with an old Claude Code on PATH, recap install claude writes no onFailure it would ignore, and doctor says the gate fails open', async () => {
    const bin = join(box.dir, 'old-claude');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), "#!/bin/sh\necho '2.1.294 (Claude Code)'\n", { mode: 0o755 });
    const env = { PATH: `${bin}:${box.env.PATH ?? ''}` };
    const installed = await runCli(box, ['install', 'claude'], { env });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain('Claude Code 2.1.294 ignores onFailure: "block"');
    expect(readFileSync(settingsFile(box), 'utf8')).not.toContain('onFailure');
    const result = await runCli(box, ['doctor'], { env });
    expect(result.code).toBe(1);
    expect(failure(result.stdout, 'claude code').line).toContain('the gate fails open');
    expect(result.stdout).toMatch(/^ok\s+claude hooks/m);
  });

  /** recap's plugin as `claude plugin install` enables it, from `folder`, in the user settings. */
  const enablePlugin = (folder: string) => {
    const settings = JSON.parse(readFileSync(settingsFile(box), 'utf8'));
    settings.enabledPlugins = { 'recap@recap-local': true };
    settings.extraKnownMarketplaces = { 'recap-local': { source: { source: 'directory', path: folder } } };
    writeFileSync(settingsFile(box), JSON.stringify(settings));
    const data = join(box.dir, '.claude', 'plugins', 'data', 'recap-recap-local');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'node'), process.execPath);
  };

  it('with recap both in the settings hooks and enabled as the plugin: FAIL, every hook would run twice', async () => {
    enablePlugin(join(ROOT, 'claude-plugin'));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'claude hooks');
    expect(line).toContain('recap is in Claude Code twice');
    expect(line).toContain('every hook runs twice');
    expect(fix).toBe('keep one: recap install claude (settings hooks) or recap install claude --plugin');
    expect(result.stdout).toMatch(/^ok\s+claude plugin\s+recap@recap-local from /m);
  });

  it("with the plugin's folder moved away: FAIL claude plugin, Claude Code cannot load it", async () => {
    expect((await runCli(box, ['uninstall', 'claude'])).code).toBe(0);
    enablePlugin(join(box.dir, 'old-global-root', 'recap', 'claude-plugin'));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'claude plugin');
    expect(line).toContain('is gone (recap moved or was removed): Claude Code fails to load it');
    expect(fix).toBe('recap install claude --plugin');
  });

  it('with a settings file that is not JSON: FAIL hooks naming the file', async () => {
    writeFileSync(settingsFile(box), '{ "hooks": ');
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(settingsFile(box));
    expect(failure(result.stdout, 'claude hooks').fix).toBe(`repair the JSON in ${settingsFile(box)}`);
  });
});

describe('recap doctor with no daemon', () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => removeSandbox(box));
  afterEach(() => {
    // Doctor must not have started one.
    expect(existsSync(box.socket)).toBe(false);
  });

  it('reports FAIL daemon with a fix, exits 1, and does not start a daemon', async () => {
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'daemon');
    expect(line).toMatch(/^FAIL\s+daemon\s+\S/);
    expect(fix).toMatch(/recap daemon/);
    expect(existsSync(box.socket)).toBe(false);
    expect(existsSync(join(box.dir, 'run', 'recap'))).toBe(false);
    // Only the manifest of recap's code that `recap install` recorded: no log, no daemon log.
    expect(readdirSync(box.data)).toEqual(['code-manifest.json']);
    // The rest is still checked.
    expect(result.stdout).toMatch(/^ok\s+claude hooks\s/m);
    expect(result.stdout).toMatch(/^ok\s+config\s/m);
  });

  it('--json output parses and marks the daemon failed', async () => {
    const result = await runCli(box, ['doctor', '--json']);
    expect(result.code).toBe(1);
    const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
    const daemon = checks.find((c) => c.name === 'daemon')!;
    expect(daemon.ok).toBe(false);
    expect(daemon.fix).toMatch(/recap daemon/);
    expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['daemon']);
  });
});

describe('recap doctor --fix', () => {
  const { newBox, start } = trackedSandboxes(afterEach);

  it("gives recap's folders that let others in their 0700 again, saying each", async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    const folders = [box.data, join(box.data, 'log'), join(box.dir, 'run', 'recap')];
    for (const folder of folders) chmodSync(folder, 0o755);
    expect((await runCli(box, ['doctor'])).code).toBe(1);

    const result = await runCli(box, ['doctor', '--fix']);
    expect(result.code, result.stdout).toBe(0);
    for (const folder of folders) {
      expect(result.stdout).toContain(`fixed chmod 700 ${folder} (it was 0755)\n`);
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    }
    const again = await runCli(box, ['doctor', '--fix', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ fixed: [] });
  });

  it('says a data folder its owner cannot write is not ok, and gives it its 0700 again', async () => {
    const box = newBox();
    const daemon = await start(box);
    await daemon.stop();
    chmodSync(box.data, 0o500);
    const doctor = await runCli(box, ['doctor', '--json']);
    const data = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'data');
    expect(data).toMatchObject({ ok: false, detail: `${box.data} is 0500: you cannot use it`, fix: `chmod 700 ${box.data}` });
    const fixed = await runCli(box, ['doctor', '--fix']);
    expect(fixed.stdout).toContain(`fixed chmod 700 ${box.data} (it was 0500)\n`);
    expect(statSync(box.data).mode & 0o777).toBe(0o700);
  });

  it('removes a stale socket left by a daemon that was killed', async () => {
    const box = newBox();
    const daemon = await start(box);
    await daemon.stop('SIGKILL');
    expect(existsSync(box.socket)).toBe(true);
    const result = await runCli(box, ['doctor', '--fix']);
    expect(result.stdout).toContain(`fixed removed ${box.socket}: a socket nobody answered on, left by a daemon that died\n`);
    expect(existsSync(box.socket)).toBe(false);
  });

  it('leaves the socket of a live daemon alone', async () => {
    const box = newBox();
    await start(box);
    const result = await runCli(box, ['doctor', '--fix', '--json']);
    expect(JSON.parse(result.stdout).fixed.filter((l: string) => l.includes('socket'))).toEqual([]);
    expect(existsSync(box.socket)).toBe(true);
  });

  it('installs again the hooks of an agent whose hook command points nowhere (recap moved)', async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    const installed = readFileSync(settingsFile(box), 'utf8');
    const moved = installed.replaceAll(join(ROOT, 'bin'), '/old/place/bin');
    expect(moved).not.toBe(installed);
    writeFileSync(settingsFile(box), moved);
    expect(failure((await runCli(box, ['doctor'])).stdout, 'claude hooks').line).toContain('/old/place/bin/recap-hook.sh does not exist');

    const result = await runCli(box, ['doctor', '--fix']);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain("fixed ran recap install claude, as the claude hooks check asked: recap's command hooks are in");
    expect(result.stdout).toMatch(/^ok\s+claude hooks\s/m);
    expect(readFileSync(settingsFile(box), 'utf8')).not.toContain('/old/place');
  });

  it('with nothing to fix says so and changes nothing', async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    const before = readFileSync(settingsFile(box), 'utf8');
    const result = await runCli(box, ['doctor', '--fix']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('fixed: nothing recap can fix by itself needed it');
    expect(readFileSync(settingsFile(box), 'utf8')).toBe(before);
  });
});

describe('recap doctor and the hook launcher', () => {
  const { newBox, start } = trackedSandboxes(afterEach);

  it('fails when the daemon has no launcher socket (hooks then start Node each call), with recap restart as the fix', async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    expect((await runCli(box, ['doctor'])).stdout).toMatch(/^ok\s+hook launcher\s+\/usr\/bin\/perl and /m);
    // A folder in its place is a path no socket can take.
    blockSocketPath(launcherSocketPath(box.socket));
    const result = await runCli(box, ['doctor']);
    expect(result.code).toBe(1);
    const { line, fix } = failure(result.stdout, 'hook launcher');
    expect(line).toContain(`the daemon has no launcher socket ${launcherSocketPath(box.socket)}`);
    expect(fix).toBe('recap restart');
  });
});
