// `recap install copilot`, `recap uninstall copilot`, the Copilot CLI lines of `recap doctor`,
// and the installed command itself run as Copilot CLI runs it (`bash -c`, the payload on
// stdin) against the real daemon: it answers in Copilot CLI's format and always exits 0, and
// prints nothing when recap-hook or its Node is gone or recap-hook crashes at load.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Check } from '../../src/common/check.js';
import { recapCommand, recapHooksFile, type HooksFile } from '../../src/agents/copilot/hooksFile.js';
import { closeSandbox, removeSandbox, ROOT, runCli, sandbox, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';

const HOOK_BIN = join(ROOT, 'bin', 'recap-hook.cjs');
const hooksFile = (box: Sandbox) => join(box.dir, '.copilot', 'hooks', 'recap.json');
const repoFile = (box: Sandbox) => join(box.project, '.github', 'hooks', 'recap.json');

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
const readJson = (file: string): HooksFile => JSON.parse(readFileSync(file, 'utf8')) as HooksFile;

describe('recap install and uninstall copilot', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => removeSandbox(box));

  it("writes ~/.copilot/hooks/recap.json with this recap's command, once; uninstall removes the file", async () => {
    const first = await runCli(box, ['install', 'copilot', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ file: hooksFile(box), mode: 'command', changed: true });
    expect(readJson(hooksFile(box))).toEqual(recapHooksFile(recapCommand(HOOK_BIN)));
    expect(JSON.parse((await runCli(box, ['install', 'copilot', '--json'])).stdout)).toMatchObject({ changed: false });
    const removed = await runCli(box, ['uninstall', 'copilot']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(hooksFile(box))).toBe(false);
    expect(existsSync(join(box.dir, '.copilot', 'hooks'))).toBe(true);
  });

  it('honours COPILOT_HOME, and keeps hooks of the user put in recap.json', async () => {
    const home = join(box.dir, 'copilot-home');
    const file = join(home, 'hooks', 'recap.json');
    const mine = { type: 'command', bash: 'echo mine', timeoutSec: 5 };
    writeJson(file, { version: 1, hooks: { Stop: [mine] } });
    expect((await runCli(box, ['install', 'copilot'], { env: { COPILOT_HOME: home } })).code).toBe(0);
    expect(readJson(file).hooks!.Stop).toEqual([mine]);
    expect((await runCli(box, ['uninstall', 'copilot'], { env: { COPILOT_HOME: home } })).code).toBe(0);
    expect(readJson(file)).toEqual({ version: 1, hooks: { Stop: [mine] } });
  });

  it('a broken recap.json is left as it is, with a clear error', async () => {
    mkdirSync(dirname(hooksFile(box)), { recursive: true });
    writeFileSync(hooksFile(box), '{ "hooks": ');
    const result = await runCli(box, ['install', 'copilot']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read .*recap\.json.*recap changed nothing/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(hooksFile(box), 'utf8')).toBe('{ "hooks": ');
  });

  it('--scope project writes .github/hooks/recap.json and warns that an untrusted folder skips it', async () => {
    const result = await runCli(box, ['install', 'copilot', '--scope', 'project'], { cwd: box.project });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(repoFile(box))).toBe(true);
    expect(result.stdout + result.stderr).toMatch(/not a trusted folder/);
  });
});

describe("recap doctor's Copilot CLI lines", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => removeSandbox(box));

  async function copilotChecks(env: NodeJS.ProcessEnv = {}): Promise<Check[]> {
    const result = await runCli(box, ['doctor', '--json'], { env, cwd: box.project });
    return (JSON.parse(result.stdout) as { checks: Check[] }).checks.filter((c) => c.name.startsWith('copilot'));
  }

  it('says nothing without recap in Copilot CLI; ok once installed', async () => {
    expect(await copilotChecks()).toEqual([]);
    await runCli(box, ['install', 'copilot']);
    expect(await copilotChecks()).toEqual([{ name: 'copilot hooks', ok: true, detail: `command hooks in ${hooksFile(box)}` }]);
  });

  it('a command of another recap, a dangling one, a hand-written one, a short timeout, a matcher', async () => {
    const cases: [unknown, RegExp][] = [
      [recapHooksFile(recapCommand('/gone/recap-hook.cjs')), /\/gone\/recap-hook\.cjs does not exist, so the hook lets every call run/],
      [recapHooksFile(`${process.execPath} ${HOOK_BIN} copilot`), /not recap's own form/],
      [
        { version: 1, hooks: { ...recapHooksFile(recapCommand(HOOK_BIN)).hooks, PreToolUse: [{ type: 'command', bash: recapCommand(HOOK_BIN), timeoutSec: 5 }] } },
        /timeoutSec \(5\)/,
      ],
      [
        { version: 1, hooks: { ...recapHooksFile(recapCommand(HOOK_BIN)).hooks, PreToolUse: [{ type: 'command', bash: recapCommand(HOOK_BIN), matcher: 'Bash' }] } },
        /matcher "Bash"/,
      ],
      [{ version: 1, hooks: { PreToolUse: recapHooksFile(recapCommand(HOOK_BIN)).hooks!.PreToolUse } }, /no SessionStart hook; no UserPromptSubmit hook/],
    ];
    for (const [file, problem] of cases) {
      writeJson(hooksFile(box), file);
      const [check] = await copilotChecks();
      expect(check, JSON.stringify(file)).toMatchObject({ name: 'copilot hooks', ok: false, fix: expect.stringContaining('recap install copilot') });
      expect(check!.detail).toMatch(problem);
    }
  });

  it("recap also in settings.json's hooks or a plugin: every prompt would count twice", async () => {
    await runCli(box, ['install', 'copilot']);
    const plugin = join(box.dir, '.copilot', 'installed-plugins', '_direct', 'recap', 'hooks.json');
    writeJson(plugin, recapHooksFile(recapCommand(HOOK_BIN)));
    const [check] = await copilotChecks();
    expect(check).toMatchObject({ ok: false });
    expect(check!.detail).toContain(`recap's hooks are in ${hooksFile(box)} and ${plugin}`);
  });

  it('a trusted repository whose settings say disableAllHooks: fails; untrusted: only a note', async () => {
    await runCli(box, ['install', 'copilot']);
    writeJson(join(box.project, '.github', 'copilot', 'settings.json'), { disableAllHooks: true });
    const [untrusted] = await copilotChecks();
    expect(untrusted).toMatchObject({ ok: true });
    expect(untrusted!.detail).toContain('would turn recap off if the folder were trusted');
    const config = join(box.dir, '.copilot', 'config.json');
    writeFileSync(config, `// managed by Copilot CLI\n${JSON.stringify({ trustedFolders: [box.project] })}\n`);
    const [trusted] = await copilotChecks();
    expect(trusted).toMatchObject({ ok: false, fix: expect.stringContaining('remove "disableAllHooks"') });
    expect(trusted!.detail).toContain('turns every hook off in this trusted folder');
    const [allowAll] = await copilotChecks({ COPILOT_ALLOW_ALL: 'true' });
    expect(allowAll).toMatchObject({ ok: false });
  });
});

describe('the installed command, run by bash as Copilot CLI runs it', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  beforeEach(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
  });
  afterEach(() => closeSandbox(box, daemon));

  const payload = (event: string, fields: Record<string, unknown>) => ({
    hook_event_name: event,
    session_id: 'copilot-int-0001',
    timestamp: '2026-11-23T18:02:31.536Z',
    cwd: box.project,
    ...fields,
  });
  const run = (command: string, input: unknown) =>
    spawnSync('bash', ['-c', command], { input: JSON.stringify(input), env: box.env, cwd: box.project, encoding: 'utf8', timeout: 30_000 });

  it('counts a prompt; on a tripped gate tells the prompt why and denies a tool call in the top-level form; always exits 0', async () => {
    const command = recapCommand(HOOK_BIN);
    const prompt = run(command, payload('UserPromptSubmit', { prompt: 'Please migrate the billing service to a queue.' }));
    expect(prompt.status, prompt.stderr).toBe(0);
    expect(prompt.stdout).toBe('');
    expect(JSON.parse((await runCli(box, ['status', '--json'], { cwd: box.project })).stdout)).toMatchObject({ unsummarizedInteractions: 1 });
    expect((await runCli(box, ['trip', '--reason', 'integration check'], { cwd: box.project })).code).toBe(0);
    const told = run(command, payload('UserPromptSubmit', { prompt: 'Carry on.' }));
    expect(told.status, told.stderr).toBe(0);
    expect(Object.keys(JSON.parse(told.stdout) as object)).toEqual(['additionalContext']);
    const denied = run(command, payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls', description: 'x' } }));
    expect(denied.status, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('needs a summary') });
  });

  it('prints nothing and exits 0 when recap-hook is gone, its Node is gone, or it crashes at load', () => {
    const broken = join(box.dir, 'broken.cjs');
    writeFileSync(broken, 'process.exit(3)\n');
    const crash = join(box.dir, 'crash.cjs');
    writeFileSync(crash, 'this is not JavaScript (\n');
    const call = payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls', description: 'x' } });
    for (const command of [recapCommand(join(box.dir, 'gone.cjs')), recapCommand(HOOK_BIN, join(box.dir, 'no-node')), recapCommand(broken), recapCommand(crash)]) {
      const result = run(command, call);
      expect(result.status, command).toBe(0);
      expect(result.stdout, command).toBe('');
    }
  });
});
