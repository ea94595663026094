// `recap install qwen`, `recap uninstall qwen` and the Qwen Code lines of `recap doctor`,
// through the real CLI on settings files in a sandboxed HOME: recap's hooks go in and out and
// everything else stays; doctor says when the hooks are missing, dangling, too slow to deny,
// switched off, in an untrusted folder, or doubled.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recapHooksIn, type Settings } from '../../src/agents/qwen/settings.js';
import { removeSandbox, ROOT, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';

const HOOK_BIN = join(ROOT, 'bin', 'recap-hook.cjs');
const LAUNCHER = join(ROOT, 'bin', 'recap-hook.sh');
const COMMAND = `/bin/sh ${LAUNCHER} ${process.execPath} qwen`;

/** Settings a Qwen Code user already has: other keys, other hooks on recap's events and on others. */
function existingSettings(): Settings {
  return {
    $version: 3,
    model: { name: 'qwen3-coder-plus' },
    security: { auth: { selectedType: 'openai' } },
    privacy: { usageStatisticsEnabled: false },
    hooks: {
      PreToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', name: 'audit', command: '/usr/local/bin/audit-shell', timeout: 5 }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'date >> ~/prompts.log' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send "Qwen is done"' }] }],
    },
  };
}

const userFile = (box: Sandbox) => join(box.dir, '.qwen', 'settings.json');
const projectFile = (box: Sandbox) => join(box.project, '.qwen', 'settings.json');
const trustFile = (box: Sandbox) => join(box.dir, '.qwen', 'trustedFolders.json');

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
const readJson = (file: string): Settings => JSON.parse(readFileSync(file, 'utf8')) as Settings;

/** The settings without recap's groups: what the user had. */
function withoutRecapGroups(settings: Settings): Settings {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    const kept = (groups as unknown[]).filter((g) => recapHooksIn({ hooks: { [event]: [g] } }).length === 0);
    if (kept.length > 0) hooks[event] = kept;
  }
  const { hooks: _ignored, ...rest } = settings;
  return Object.keys(hooks).length > 0 ? { ...rest, hooks } : rest;
}

describe('recap install qwen', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => removeSandbox(box));

  it("keeps a project's .env from making bash trace into the hook's answer (SHELLOPTS=xtrace, BASH_XTRACEFD=1), which Qwen Code would take for plain text and let the tool run", async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect((await runCli(box, ['status'])).code).toBe(0);
    const entry = recapHooksIn(readJson(userFile(box))).find((h) => h.event === 'PreToolUse')!.hook as { command: string; env: Record<string, string> };
    const payload = JSON.stringify({
      session_id: 's1',
      cwd: box.project,
      hook_event_name: 'PreToolUse',
      tool_name: 'write_file',
      tool_input: { file_path: box.config, content: 'TOKEN_THRESHOLD=99999999\n' },
    });
    // What a trusted project's .env adds to the environment Qwen Code runs its hooks with (under the hook's own env).
    const traced = { ...box.env, SHELLOPTS: 'xtrace', BASH_XTRACEFD: '1', PS4: '+ ' };
    const run = (env: NodeJS.ProcessEnv) => spawnSync('bash', ['-c', entry.command], { env, input: payload, cwd: box.project, encoding: 'utf8' });
    // Without recap's pins, bash's trace comes first: not an answer.
    expect(() => JSON.parse(run(traced).stdout)).toThrow();
    const answer = run({ ...traced, ...entry.env });
    expect(JSON.parse(answer.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect((await runCli(box, ['stop'])).code).toBe(0);
  });

  it('adds six command hooks to the user settings and keeps every other key and hook', async () => {
    writeJson(userFile(box), existingSettings());
    const result = await runCli(box, ['install', 'qwen']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`recap's command hooks are in ${userFile(box)}; new Qwen Code sessions use them\n`);

    const after = readJson(userFile(box));
    expect(withoutRecapGroups(after)).toEqual(existingSettings());
    for (const [event, groups] of Object.entries(existingSettings().hooks!)) {
      expect((after.hooks![event] as unknown[]).slice(0, (groups as unknown[]).length)).toEqual(groups);
    }
    // The environment names recap's own socket, data and config (a project's .env reaches Qwen Code's hooks).
    const env = {
      RECAP_SOCKET: box.socket,
      RECAP_DATA_DIR: box.data,
      RECAP_CONFIG: box.config,
      RECAP_HOOK_DEADLINE_MS: '',
      NODE_OPTIONS: '',
      LD_PRELOAD: '',
      LD_AUDIT: '',
      LD_LIBRARY_PATH: '',
      BASH_ENV: '',
      DYLD_INSERT_LIBRARIES: '',
      OPENSSL_CONF: '',
      OPENSSL_MODULES: '',
      OPENSSL_ENGINES: '',
      GCONV_PATH: '',
      PERL5OPT: '',
      PERL5LIB: '',
      PERLLIB: '',
      PERL5DB: '',
      SHELLOPTS: '',
      BASHOPTS: '',
      BASH_XTRACEFD: '',
      PS4: '',
    };
    const entry = { type: 'command', name: 'recap', command: COMMAND, timeout: 20, env };
    expect(recapHooksIn(after)).toEqual([
      { event: 'PreToolUse', matcher: '*', hook: entry },
      { event: 'UserPromptSubmit', matcher: undefined, hook: entry },
      { event: 'PostToolUse', matcher: 'ask_user_question', hook: entry },
      { event: 'SessionStart', matcher: undefined, hook: entry },
      { event: 'PreCompact', matcher: undefined, hook: entry },
      { event: 'SessionEnd', matcher: undefined, hook: entry },
    ]);
  });

  it('creates the settings file when there is none', async () => {
    const result = await runCli(box, ['install', 'qwen', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ file: userFile(box), mode: 'command', changed: true });
    expect(recapHooksIn(readJson(userFile(box))).map((f) => f.event)).toEqual(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart', 'PreCompact', 'SessionEnd']);
  });

  it('installing twice changes nothing, and says so', async () => {
    writeJson(userFile(box), existingSettings());
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const once = readFileSync(userFile(box));
    const mtime = statSync(userFile(box)).mtimeMs;
    const again = await runCli(box, ['install', 'qwen']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`recap's command hooks were already in ${userFile(box)}; nothing changed\n`);
    expect(readFileSync(userFile(box)).equals(once)).toBe(true);
    expect(statSync(userFile(box)).mtimeMs).toBe(mtime);
  });

  it('with QWEN_HOME set, writes the settings there: Qwen Code reads no other', async () => {
    const home = join(box.dir, 'qwen-home');
    const result = await runCli(box, ['install', 'qwen', '--json'], { env: { QWEN_HOME: home } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ file: join(home, 'settings.json') });
    expect(recapHooksIn(readJson(join(home, 'settings.json')))).toHaveLength(6);
    expect(existsSync(userFile(box))).toBe(false);
  });

  it('--scope project from a subfolder writes <git top-level>/.qwen/settings.json and leaves the user settings alone', async () => {
    writeJson(projectFile(box), { tools: { approvalMode: 'default' } });
    const sub = join(box.project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const result = await runCli(box, ['install', 'qwen', '--scope', 'project'], { cwd: sub });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(projectFile(box));
    const after = readJson(projectFile(box));
    expect(after.tools).toEqual({ approvalMode: 'default' });
    expect(recapHooksIn(after)).toHaveLength(6);
    expect(existsSync(userFile(box))).toBe(false);
  });

  it('--scope project warns when folder trust is on and the project is not trusted, and installs all the same', async () => {
    writeJson(userFile(box), { security: { folderTrust: { enabled: true } } });
    const result = await runCli(box, ['install', 'qwen', '--scope', 'project']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `recap: warning: folder trust is on and ${box.project} is not trusted, so Qwen Code will not run the hooks in ${projectFile(box)}; trust the folder (/trust in Qwen Code) or install for the user (recap install qwen)\n`,
    );
    expect(recapHooksIn(readJson(projectFile(box)))).toHaveLength(6);
    // Trusted, no warning.
    writeJson(trustFile(box), { [box.project]: 'TRUST_FOLDER' });
    expect((await runCli(box, ['install', 'qwen', '--scope', 'project'])).stderr).toBe('');
  });

  it('warns when disableAllHooks turns every hook off', async () => {
    writeJson(userFile(box), { disableAllHooks: true });
    const result = await runCli(box, ['install', 'qwen']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`recap: warning: "disableAllHooks": true in ${userFile(box)} turns every hook off, recap's too; remove it\n`);
  });

  it('--http is refused: an HTTP hook whose daemon is down lets the tool run', async () => {
    const result = await runCli(box, ['install', 'qwen', '--http']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Qwen Code has no HTTP hooks');
    expect(existsSync(userFile(box))).toBe(false);
  });

  it.each([
    ['not valid JSON', '{\n  "model": "x",\n  "hooks": { "PreToolUse": [ ,, ] \n', /^recap: cannot read .*: .*; fix it or move it aside \(recap changed nothing\)\n$/],
    ['a JSON array', '[1, 2]\n', /does not hold a JSON object; fix it or move it aside \(recap changed nothing\)\n$/],
    ['"hooks" that are not an object', '{"hooks": []}\n', /"hooks" in .* is not an object/],
    [
      'comments, which a rewrite would lose',
      '{\n  // my model\n  "model": { "name": "qwen3-coder-plus" }\n}\n',
      /holds comments, which recap would lose by writing the file; take them out \(or move the file aside\) and run the command again \(recap changed nothing\)\n$/,
    ],
  ])('refuses a settings file holding %s, one line, exit 1, the file unchanged', async (_what, text, message) => {
    mkdirSync(dirname(userFile(box)), { recursive: true });
    writeFileSync(userFile(box), text);
    for (const args of [
      ['install', 'qwen'],
      ['uninstall', 'qwen'],
    ]) {
      const result = await runCli(box, args);
      if (args[0] === 'uninstall' && text.includes('// my model')) {
        // Nothing of recap's to take out: nothing to write, nothing refused.
        expect(result.code).toBe(0);
        continue;
      }
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(userFile(box), 'utf8')).toBe(text);
    }
  });

  it("reads a settings file with comments that already holds recap's hooks, and leaves it be", async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const text = `// mine\n${readFileSync(userFile(box), 'utf8')}`;
    writeFileSync(userFile(box), text);
    const again = await runCli(box, ['install', 'qwen']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing changed');
    expect(readFileSync(userFile(box), 'utf8')).toBe(text);
  });

  it('keeps the file mode', async () => {
    writeJson(userFile(box), existingSettings());
    chmodSync(userFile(box), 0o600);
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect(statSync(userFile(box)).mode & 0o777).toBe(0o600);
  });
});

describe('recap uninstall qwen', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => removeSandbox(box));

  it("removes only recap's entries, giving back the settings as they were", async () => {
    writeJson(userFile(box), existingSettings());
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const result = await runCli(box, ['uninstall', 'qwen']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`removed recap's hooks from ${userFile(box)}\n`);
    expect(readJson(userFile(box))).toEqual(existingSettings());
    const again = await runCli(box, ['uninstall', 'qwen']);
    expect(again.stdout).toBe('recap had no hooks there; nothing changed\n');
  });

  it('keeps a user hook that shares a group with recap', async () => {
    const mine = { type: 'command', command: '/usr/local/bin/log-every-tool' };
    writeJson(userFile(box), { hooks: { PreToolUse: [{ matcher: '*', hooks: [mine, { type: 'command', name: 'recap', command: COMMAND, timeout: 20 }] }] } });
    expect((await runCli(box, ['uninstall', 'qwen'])).code).toBe(0);
    expect(readJson(userFile(box))).toEqual({ hooks: { PreToolUse: [{ matcher: '*', hooks: [mine] }] } });
  });

  it('--scope project takes recap out of the project settings only', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    writeJson(projectFile(box), { model: { name: 'x' } });
    expect((await runCli(box, ['install', 'qwen', '--scope', 'project'])).code).toBe(0);
    const result = await runCli(box, ['uninstall', 'qwen', '--scope', 'project']);
    expect(result.stdout).toBe(`removed recap's hooks from ${projectFile(box)}\n`);
    expect(readJson(projectFile(box))).toEqual({ model: { name: 'x' } });
    expect(recapHooksIn(readJson(userFile(box)))).toHaveLength(6);
  });

  it('with no settings file says nothing changed and creates none', async () => {
    const result = await runCli(box, ['uninstall', 'qwen']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('recap had no hooks there; nothing changed\n');
    expect(existsSync(userFile(box))).toBe(false);
  });
});

type Check = { name: string; ok: boolean; detail: string; fix?: string };

describe("recap doctor's Qwen Code lines", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => removeSandbox(box));

  /** The Qwen Code checks of `recap doctor --json` (the daemon's own are not at issue here). */
  async function qwenChecks(env: NodeJS.ProcessEnv = {}): Promise<Check[]> {
    const result = await runCli(box, ['doctor', '--json'], { env });
    const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
    return checks.filter((c) => c.name.startsWith('qwen'));
  }
  async function hooksCheck(): Promise<Check> {
    const checks = await qwenChecks();
    expect(checks.map((c) => c.name)).toEqual(['qwen hooks']);
    return checks[0]!;
  }
  /** The installed settings with one change made to them. */
  function edit(file: string, change: (s: Settings) => void): void {
    const settings = readJson(file);
    change(settings);
    writeJson(file, settings);
  }
  const groups = (s: Settings, event: string) => s.hooks![event] as { matcher?: string; hooks: Record<string, unknown>[] }[];

  it('says nothing when Qwen Code has no settings, nor when they hold no recap hook', async () => {
    expect(await qwenChecks()).toEqual([]);
    writeJson(userFile(box), existingSettings());
    expect(await qwenChecks()).toEqual([]);
  });

  it('with everything right: ok, naming the file', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect(await hooksCheck()).toEqual({ name: 'qwen hooks', ok: true, detail: `command hooks in ${userFile(box)}` });
    const human = await runCli(box, ['doctor']);
    expect(human.stdout).toMatch(new RegExp(`^ok\\s+qwen hooks\\s+command hooks in ${userFile(box).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  });

  it('settings that are not JSON: FAIL naming the file', async () => {
    mkdirSync(dirname(userFile(box)), { recursive: true });
    writeFileSync(userFile(box), '{ "hooks": ');
    const check = await hooksCheck();
    expect(check).toMatchObject({ ok: false, fix: `repair the JSON in ${userFile(box)}` });
    expect(check.detail).toContain(userFile(box));
  });

  it('missing events: FAIL naming them; the fix it names repairs it', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    edit(userFile(box), (s) => {
      delete s.hooks!.SessionStart;
      delete s.hooks!.UserPromptSubmit;
    });
    const check = await hooksCheck();
    expect(check).toMatchObject({ ok: false, detail: 'no UserPromptSubmit hook; no SessionStart hook', fix: 'recap install qwen' });
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect((await hooksCheck()).ok).toBe(true);
  });

  it('a hook naming a bundle that is gone: FAIL naming it', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const gone = join(box.dir, 'gone', 'recap-hook.sh');
    writeFileSync(userFile(box), readFileSync(userFile(box), 'utf8').replaceAll(LAUNCHER, gone));
    const check = await hooksCheck();
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(`PreToolUse in ${userFile(box)}: ${gone} does not exist`);
  });

  it('a hook that lets PATH find node: FAIL', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    writeFileSync(userFile(box), readFileSync(userFile(box), 'utf8').replaceAll(COMMAND, `${HOOK_BIN} qwen`));
    expect((await hooksCheck()).detail).toContain('does not name node by absolute path');
  });

  it.each([
    [5, '5'],
    [8000, '8000'],
    ['"20"', '"20"'],
  ])('a timeout of %s that does not outlast recap-hook: FAIL, a hook that times out lets the tool run', async (timeout, shown) => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    edit(userFile(box), (s) => {
      groups(s, 'PreToolUse')[0]!.hooks[0]!.timeout = typeof timeout === 'string' ? JSON.parse(timeout) : timeout;
    });
    expect((await hooksCheck()).detail).toBe(
      `PreToolUse in ${userFile(box)}: its timeout (${shown}) does not leave recap-hook its 8 s, and a hook that times out lets the tool run`,
    );
  });

  it('a PreToolUse matcher that leaves tools out: FAIL', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    edit(userFile(box), (s) => {
      groups(s, 'PreToolUse')[0]!.matcher = 'run_shell_command';
    });
    expect((await hooksCheck()).detail).toContain('its matcher "run_shell_command" leaves some tools unchecked');
  });

  it('disableAllHooks: FAIL naming the file that decides; a project may turn it back on', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    edit(userFile(box), (s) => {
      s.disableAllHooks = true;
    });
    expect(await hooksCheck()).toMatchObject({
      ok: false,
      detail: `"disableAllHooks": true in ${userFile(box)} turns every hook off`,
      fix: `remove "disableAllHooks" from ${userFile(box)}`,
    });
    writeJson(projectFile(box), { disableAllHooks: false });
    expect((await hooksCheck()).ok).toBe(true);
  });

  it('project hooks with folder trust on: FAIL while the project is not trusted, ok once a rule trusts it', async () => {
    writeJson(userFile(box), { security: { folderTrust: { enabled: true } } });
    expect((await runCli(box, ['install', 'qwen', '--scope', 'project'])).code).toBe(0);
    const untrusted = await hooksCheck();
    expect(untrusted).toMatchObject({
      ok: false,
      detail: `folder trust is on and ${box.project} is not trusted, so Qwen Code does not load the hooks in ${projectFile(box)}`,
      fix: `trust ${box.project} in Qwen Code (/trust), or install for the user instead: recap install qwen`,
    });
    // TRUST_PARENT on a child folder trusts the folder holding it.
    writeJson(trustFile(box), { [join(box.project, 'src')]: 'TRUST_PARENT' });
    expect((await hooksCheck()).ok).toBe(true);
    // The deepest rule decides: the project itself marked untrusted.
    writeJson(trustFile(box), { [box.dir]: 'TRUST_FOLDER', [box.project]: 'DO_NOT_TRUST' });
    expect((await hooksCheck()).ok).toBe(false);
    writeJson(trustFile(box), { [box.dir]: 'TRUST_FOLDER' });
    expect((await hooksCheck()).ok).toBe(true);
  });

  it('hooks in both the user and the project settings: FAIL, each prompt would count twice', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    expect((await runCli(box, ['install', 'qwen', '--scope', 'project'])).code).toBe(0);
    expect(await hooksCheck()).toMatchObject({
      ok: false,
      detail: `recap's hooks are in both ${userFile(box)} and ${projectFile(box)}: Qwen Code runs both, so every prompt counts twice`,
      fix: 'recap uninstall qwen --scope project',
    });
  });

  it('an installed Qwen Code older than the one recap is verified with: FAIL; the verified one: ok', async () => {
    expect((await runCli(box, ['install', 'qwen'])).code).toBe(0);
    const bin = join(box.dir, 'qwen-bin');
    mkdirSync(bin);
    const qwenOnPath = (version: string) => {
      writeFileSync(join(bin, 'qwen'), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
      return { PATH: `${bin}:${box.env.PATH ?? ''}` };
    };
    const old = (await qwenChecks(qwenOnPath('0.20.1'))).find((c) => c.name === 'qwen code');
    expect(old).toMatchObject({ ok: false, fix: 'update Qwen Code: npm install -g @qwen-code/qwen-code@latest' });
    expect(old!.detail).toContain('0.20.1: older than 0.24.4');
    expect((await qwenChecks(qwenOnPath('0.24.4'))).find((c) => c.name === 'qwen code')).toMatchObject({ ok: true });
  });
});
