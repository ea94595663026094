// `recap install gemini`, `recap uninstall gemini` and `recap doctor` through the real CLI, in
// a sandboxed HOME: recap's extension folder comes and goes whole, every other extension and
// setting stays as it was, a second install changes nothing, a new one leaves no old path
// behind, the command every hook runs can never be missing, and doctor finds what would keep
// the hooks from running.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandTarget, hookCommand } from '../../src/agents/gemini/extension.js';
import { removeSandbox, ROOT, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';

const HOOK_BIN = join(ROOT, 'bin', 'recap-hook.cjs');
type Check = { name: string; ok: boolean; detail: string; fix?: string };
type Hooks = { hooks: Record<string, { matcher?: string; hooks: { type: string; name: string; command: string; timeout: number; env: Record<string, string> }[] }[]> };

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => removeSandbox(box));

const gemini = () => join(box.dir, '.gemini');
const extension = () => join(gemini(), 'extensions', 'recap');
const hooksFile = () => join(extension(), 'hooks', 'hooks.json');
const readHooks = () => JSON.parse(readFileSync(hooksFile(), 'utf8')) as Hooks;
const commands = (hooks: Hooks) => Object.values(hooks.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** What a user of Gemini CLI already has: settings with comments and hooks, another extension, enablement rules. */
const USER_FILES: Record<string, string> = {
  'settings.json':
    '{\n  // mine\n  "security": { "auth": { "selectedType": "gemini-api-key" } },\n  "hooks": { "BeforeTool": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "audit.sh" }] }] }\n}\n',
  'extensions/other/gemini-extension.json': '{ "name": "other", "version": "1.2.3" }\n',
  'extensions/other/hooks/hooks.json': '{ "hooks": { "AfterTool": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "log.sh" }] }] } }\n',
  'extensions/extension-enablement.json': '{ "other": { "overrides": ["!/tmp/*"] } }\n',
  'trustedFolders.json': '{ "/home/x/code": "TRUST_FOLDER" }\n',
};

function writeUserFiles(): void {
  for (const [name, text] of Object.entries(USER_FILES)) write(join(gemini(), name), text);
}

function expectUserFilesUnchanged(): void {
  for (const [name, text] of Object.entries(USER_FILES)) expect(readFileSync(join(gemini(), name), 'utf8'), name).toBe(text);
}

async function doctor(cwd = box.project, env: NodeJS.ProcessEnv = {}): Promise<Check[]> {
  const result = await runCli(box, ['doctor', '--json'], { cwd, env });
  return (JSON.parse(result.stdout) as { checks: Check[] }).checks.filter((c) => c.name.startsWith('gemini'));
}

describe('recap install gemini', () => {
  it('writes its own extension folder (manifest and hooks) and touches nothing of the user', async () => {
    writeUserFiles();
    const result = await runCli(box, ['install', 'gemini']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`recap's command hooks are in ${extension()}; new Gemini CLI sessions use them\n`);
    expect(JSON.parse(readFileSync(join(extension(), 'gemini-extension.json'), 'utf8'))).toMatchObject({ name: 'recap', version: expect.any(String) });
    const hooks = readHooks();
    expect(Object.keys(hooks.hooks)).toEqual(['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'SessionEnd']);
    for (const command of commands(hooks)) expect(commandTarget(command)).toEqual({ node: process.execPath, hookBin: HOOK_BIN });
    // recap-hook talks to this user's daemon whatever a project's .env says.
    for (const entry of Object.values(hooks.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks))) {
      expect(entry.env).toMatchObject({
        RECAP_SOCKET: box.socket,
        RECAP_DATA_DIR: box.data,
        RECAP_CONFIG: box.config,
        RECAP_HOOK_DEADLINE_MS: '',
        NODE_OPTIONS: '',
        LD_PRELOAD: '',
      });
    }
    expectUserFilesUnchanged();
    expect(readdirSync(join(gemini(), 'extensions')).sort()).toEqual(['extension-enablement.json', 'other', 'recap']);
  });

  it('a second time changes nothing', async () => {
    await runCli(box, ['install', 'gemini']);
    const before = readFileSync(hooksFile(), 'utf8');
    const again = await runCli(box, ['install', 'gemini']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`recap's command hooks were already in ${extension()}; nothing changed\n`);
    expect(readFileSync(hooksFile(), 'utf8')).toBe(before);
  });

  it('over an older install leaves none of its paths behind', async () => {
    await runCli(box, ['install', 'gemini']);
    const old = hookCommand('/opt/old-recap/bin/recap-hook.cjs', '/opt/old-node/bin/node', extension());
    writeFileSync(hooksFile(), JSON.stringify({ hooks: { BeforeTool: [{ matcher: '*', hooks: [{ type: 'command', name: 'recap', command: old, timeout: 5000 }] }] } }));
    const result = await runCli(box, ['install', 'gemini']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(hooksFile(), 'utf8')).not.toContain('/opt/old');
    for (const command of commands(readHooks())) expect(commandTarget(command)).toEqual({ node: process.execPath, hookBin: HOOK_BIN });
  });

  it('into GEMINI_CLI_HOME when it is set', async () => {
    const other = join(box.dir, 'gemini-home');
    const result = await runCli(box, ['install', 'gemini'], { env: { GEMINI_CLI_HOME: other } });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(other, '.gemini', 'extensions', 'recap', 'hooks', 'hooks.json'))).toBe(true);
    expect(existsSync(extension())).toBe(false);
  });

  it.each([
    [
      'an extension of the user in ~/.gemini/extensions/recap',
      () => write(join(extension(), 'gemini-extension.json'), '{ "name": "recap", "version": "9" }\n'),
      'holds an extension recap did not write',
    ],
    ['a broken manifest there', () => write(join(extension(), 'gemini-extension.json'), '{ "name": '), 'cannot read'],
    [
      'another extension folder named recap',
      () => write(join(gemini(), 'extensions', 'recap-old', 'gemini-extension.json'), '{ "name": "recap", "version": "1" }\n'),
      'refuses to start with two extensions of one name',
    ],
  ])('refuses %s, changing nothing', async (_what, arrange, message) => {
    arrange();
    const before = readdirSync(join(gemini(), 'extensions'), { recursive: true }).sort();
    const result = await runCli(box, ['install', 'gemini']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('recap changed nothing');
    expect(result.stderr).not.toContain('    at ');
    expect(readdirSync(join(gemini(), 'extensions'), { recursive: true }).sort()).toEqual(before);
  });

  it("refuses to run in Gemini CLI's shell (GEMINI_CLI is set)", async () => {
    const result = await runCli(box, ['install', 'gemini'], { env: { GEMINI_CLI: '1' } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('GEMINI_CLI is set');
    expect(existsSync(extension())).toBe(false);
  });

  it('refuses --scope project: Gemini CLI has no project extensions', async () => {
    const result = await runCli(box, ['install', 'gemini', '--scope', 'project']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('without --scope project');
    expect(existsSync(join(box.project, '.gemini'))).toBe(false);
    expect(existsSync(gemini())).toBe(false);
  });
});

describe('recap uninstall gemini', () => {
  it("removes recap's extension folder and nothing else, then has nothing left to do", async () => {
    writeUserFiles();
    await runCli(box, ['install', 'gemini']);
    const result = await runCli(box, ['uninstall', 'gemini']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`removed recap's hooks from ${extension()}\n`);
    expect(existsSync(extension())).toBe(false);
    expectUserFilesUnchanged();
    // No hook is left that names recap's files: nothing can dangle.
    const files = readdirSync(gemini(), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.filter((e) => readFileSync(join(e.parentPath, e.name), 'utf8').includes('recap-hook'))).toEqual([]);
    const again = await runCli(box, ['uninstall', 'gemini']);
    expect(again.stdout).toBe('recap had no hooks there; nothing changed\n');
  });

  it('leaves an extension named recap that recap did not write', async () => {
    write(join(extension(), 'gemini-extension.json'), '{ "name": "recap", "version": "9" }\n');
    const result = await runCli(box, ['uninstall', 'gemini']);
    expect(result.stdout).toBe('recap had no hooks there; nothing changed\n');
    expect(existsSync(join(extension(), 'gemini-extension.json'))).toBe(true);
  });
});

describe('the command every hook runs', () => {
  const payload = JSON.stringify({ hook_event_name: 'BeforeTool', cwd: '/tmp', tool_name: 'run_shell_command', tool_input: { command: 'ls' } });
  const run = (command: string) => spawnSync('bash', ['-c', command], { input: payload, encoding: 'utf8' });

  it.each([
    ['the bundle is gone', () => hookCommand(join(box.dir, 'gone', 'recap-hook.cjs'), process.execPath, extension())],
    ['the Node is gone', () => hookCommand(HOOK_BIN, join(box.dir, 'gone', 'node'), extension())],
    [
      'the Node is not executable',
      () => {
        const node = join(box.dir, 'node');
        copyFileSync('/bin/true', node);
        chmodSync(node, 0o644);
        return hookCommand(HOOK_BIN, node, extension());
      },
    ],
  ])('exits 0 with a systemMessage when %s (a missing command, exit 127, would deny every call)', (_what, make) => {
    const result = run(make());
    expect(result.status).toBe(0);
    const answer = JSON.parse(result.stdout) as { systemMessage: string; decision?: string };
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toContain('recap: its hook');
    expect(answer.systemMessage).toContain('recap install gemini');
  });

  it('runs recap-hook with the payload on its stdin while both files are there', () => {
    // A hook that is told nothing it knows answers at once, without a daemon.
    const result = spawnSync('bash', ['-c', hookCommand(HOOK_BIN, process.execPath, extension()).replace(' gemini;', ' nobody;')], { input: payload, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unknown agent "nobody"');
  });
});

describe('recap doctor for Gemini CLI', () => {
  it('says nothing when neither recap nor Gemini CLI is set up', async () => {
    expect(await doctor()).toEqual([]);
  });

  it('says recap is not installed when Gemini CLI is set up', async () => {
    write(join(gemini(), 'settings.json'), '{}\n');
    expect(await doctor()).toEqual([expect.objectContaining({ name: 'gemini hooks', ok: false, fix: 'recap install gemini' })]);
  });

  it('finds everything right after an install', async () => {
    writeUserFiles();
    await runCli(box, ['install', 'gemini']);
    const checks = await doctor();
    expect(checks).toEqual([
      { name: 'gemini hooks', ok: true, detail: expect.stringContaining('trusted and untrusted folders') },
      { name: 'gemini runs', ok: true, detail: expect.any(String) },
    ]);
  });

  it('finds a dangling path: the Node a hook names is gone', async () => {
    await runCli(box, ['install', 'gemini']);
    const gone = join(box.dir, 'old-node', 'bin', 'node');
    writeFileSync(hooksFile(), readFileSync(hooksFile(), 'utf8').replaceAll(process.execPath, gone));
    const [hooks] = await doctor();
    expect(hooks).toMatchObject({ name: 'gemini hooks', ok: false, fix: 'recap install gemini' });
    expect(hooks!.detail).toContain(`${gone} does not exist`);
  });

  it("finds hooks that talk to another daemon than this environment's", async () => {
    await runCli(box, ['install', 'gemini']);
    const [hooks] = await doctor(box.project, { RECAP_SOCKET: join(box.dir, 'elsewhere.sock') });
    expect(hooks).toMatchObject({ ok: false, fix: 'recap install gemini' });
    expect(hooks!.detail).toContain(`RECAP_SOCKET=${JSON.stringify(box.socket)}, not ${JSON.stringify(join(box.dir, 'elsewhere.sock'))}`);
  });

  it('finds a hook missing from hooks.json', async () => {
    await runCli(box, ['install', 'gemini']);
    const hooks = readHooks();
    delete hooks.hooks.BeforeTool;
    writeFileSync(hooksFile(), JSON.stringify(hooks));
    expect((await doctor())[0]).toMatchObject({ ok: false, detail: expect.stringContaining('no BeforeTool hook') });
  });

  it('finds an extension folder that is not loaded: no manifest', async () => {
    await runCli(box, ['install', 'gemini']);
    rmSync(join(extension(), 'gemini-extension.json'));
    expect((await doctor())[0]).toMatchObject({ ok: false, detail: expect.stringContaining('has no gemini-extension.json') });
  });

  it.each([
    [
      'hooks switched off in the user settings (with comments)',
      () => write(join(gemini(), 'settings.json'), '{ /* mine */ "hooksConfig": { "enabled": false } // off\n}\n'),
      'hooksConfig.enabled: false',
    ],
    [
      "recap's hooks disabled by name in the project settings",
      () => write(join(box.project, '.gemini', 'settings.json'), '{ "hooksConfig": { "disabled": ["recap"] } }\n'),
      'hooksConfig.disabled',
    ],
    [
      'the extension disabled for this folder',
      () => write(join(gemini(), 'extensions', 'extension-enablement.json'), JSON.stringify({ recap: { overrides: [`!${box.project}/*`] } })),
      'disables recap in',
    ],
    [
      'extensions switched off by the admin',
      () => write(join(box.dir, 'system-settings.json'), '{ "admin": { "extensions": { "enabled": false } } }\n'),
      'admin.extensions.enabled: false',
    ],
    [
      'extensions restricted to allowed sources',
      () => write(join(gemini(), 'settings.json'), '{ "security": { "allowedExtensions": ["^https://github.com/acme/"] } }\n'),
      'security.allowedExtensions',
    ],
    [
      'recap-hook also run from the settings hooks',
      () =>
        write(
          join(gemini(), 'settings.json'),
          '{ "hooks": { "BeforeTool": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "/usr/local/bin/recap-hook gemini" }] }] } }\n',
        ),
      'runs recap-hook from its own hooks (BeforeTool)',
    ],
    [
      'a second extension named recap',
      () => write(join(gemini(), 'extensions', 'recap2', 'gemini-extension.json'), '{ "name": "recap", "version": "1" }\n'),
      'Gemini CLI refuses to start',
    ],
    ['unreadable user settings', () => write(join(gemini(), 'settings.json'), '{ "hooksConfig": '), 'cannot read'],
    [
      "Gemini CLI's sandbox on in the user settings",
      () => write(join(gemini(), 'settings.json'), '{ "tools": { "sandbox": "docker" } }\n'),
      "Gemini CLI's sandbox is on (tools.sandbox",
    ],
    ["a project .env that moves Gemini CLI's home", () => write(join(box.project, '.env'), 'DEBUG=1\nexport GEMINI_CLI_HOME=/tmp/elsewhere\n'), '.env sets GEMINI_CLI_HOME'],
    [
      'a project .env that loads code into the shell tool',
      () => write(join(box.project, '.gemini', '.env'), 'NODE_OPTIONS="--require ./hook.js"\n'),
      '.gemini/.env sets NODE_OPTIONS, which loads code',
    ],
  ])('finds %s', async (_what, arrange, detail) => {
    await runCli(box, ['install', 'gemini']);
    arrange();
    // Gemini CLI takes from a .env only what the user has not set: the fake macOS run's own NODE_OPTIONS is left out here.
    const checks = await doctor(box.project, { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(box.dir, 'system-settings.json'), NODE_OPTIONS: undefined });
    expect(checks[0]).toMatchObject({ name: 'gemini hooks', ok: true });
    expect(checks[1]).toMatchObject({ name: 'gemini runs', ok: false, detail: expect.stringContaining(detail) });
  });

  it("finds Gemini CLI's sandbox switched on by GEMINI_SANDBOX", async () => {
    await runCli(box, ['install', 'gemini']);
    expect((await doctor(box.project, { GEMINI_SANDBOX: 'podman' }))[1]).toMatchObject({ ok: false, detail: expect.stringContaining('GEMINI_SANDBOX=podman') });
    expect((await doctor(box.project, { GEMINI_SANDBOX: 'false' }))[1]).toMatchObject({ ok: true });
  });

  it('lets a project .env with harmless NODE_OPTIONS be', async () => {
    await runCli(box, ['install', 'gemini']);
    write(join(box.project, '.env'), 'NODE_OPTIONS=--max-old-space-size=4096\nDATABASE_URL=postgres://x\n');
    expect((await doctor())[1]).toMatchObject({ name: 'gemini runs', ok: true });
  });

  it('finds recap-hook run from settings hooks even without the extension', async () => {
    write(join(gemini(), 'settings.json'), '{ "hooks": { "BeforeAgent": [{ "hooks": [{ "type": "command", "command": "recap-hook gemini" }] }] } }\n');
    const checks = await doctor();
    expect(checks[0]).toMatchObject({ name: 'gemini hooks', ok: false, detail: expect.stringContaining('no recap extension') });
    expect(checks[1]).toMatchObject({ name: 'gemini runs', ok: false, detail: expect.stringContaining('runs recap-hook from its own hooks (BeforeAgent)') });
  });
});
