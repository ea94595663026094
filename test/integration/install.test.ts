// `recap install claude` and `recap uninstall claude` through the real CLI, on settings
// files in a sandboxed HOME: recap's hooks go in and out, everything else stays.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCommandWords, RECAP_EVENTS, recapHooksIn, type Settings } from '../../src/agents/claude/settings.js';
import { freePort, removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';

const HOOK_BIN = join(ROOT, 'bin', 'recap-hook.cjs');

/** Settings a user already has: other keys, other hooks on recap's events and on others. */
function existingSettings(): Settings {
  return {
    model: 'sonnet',
    permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)'] },
    env: { NODE_ENV: 'development' },
    unknownFutureKey: { a: [1, 2, 3], b: null },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/audit-bash', timeout: 5 }] }],
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npm run lint --silent' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send "Claude is done"' }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'cat ~/.claude/motd' }] }],
    },
  };
}

const userSettingsFile = (box: Sandbox) => join(box.dir, '.claude', 'settings.json');
const projectSettingsFile = (box: Sandbox) => join(box.project, '.claude', 'settings.json');
const projectLocalFile = (box: Sandbox) => join(box.project, '.claude', 'settings.local.json');

function writeJson(file: string, value: unknown, mode = 0o644): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  chmodSync(file, mode);
}

const readJson = (file: string): Settings => JSON.parse(readFileSync(file, 'utf8')) as Settings;
const modeOf = (file: string) => statSync(file).mode & 0o777;

/** The settings with every recap group taken out: what the user had. */
function withoutRecapGroups(settings: Settings): Settings {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    const kept = (groups as { hooks: unknown[] }[]).filter((g) => recapHooksIn({ hooks: { [event]: [g] } }).length === 0);
    if (kept.length > 0) hooks[event] = kept;
  }
  const { hooks: _ignored, ...rest } = settings;
  return Object.keys(hooks).length > 0 ? { ...rest, hooks } : rest;
}

function recapGroup(settings: Settings, event: string): { matcher?: string; hooks: Record<string, unknown>[] } | undefined {
  const groups = (settings.hooks?.[event] ?? []) as { matcher?: string; hooks: Record<string, unknown>[] }[];
  return groups.find((g) => recapHooksIn({ hooks: { [event]: [g] } }).length > 0);
}

describe('recap install claude', () => {
  let box: Sandbox;
  let daemon: DaemonProcess | undefined;

  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    removeSandbox(box);
  });

  it('adds its command hooks to the user settings and keeps every other key and hook', async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    writeJson(file, existingSettings());

    const result = await runCli(box, ['install', 'claude']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`recap's command hooks are in ${file}; new Claude Code sessions use them\n`);

    const after = readJson(file);
    expect(withoutRecapGroups(after)).toEqual(existingSettings());
    // Every group the user had is still there, unchanged and in its place.
    for (const [event, groups] of Object.entries(existingSettings().hooks!)) {
      expect((after.hooks![event] as unknown[]).slice(0, (groups as unknown[]).length)).toEqual(groups);
    }

    const expected: [string, string | undefined][] = [
      ['PreToolUse', '*'],
      ['PostToolUse', 'AskUserQuestion'],
      ['UserPromptSubmit', undefined],
      ['SessionStart', undefined],
    ];
    for (const [event, matcher] of expected) {
      const group = recapGroup(after, event);
      expect(group, event).toBeDefined();
      expect(group!.matcher).toBe(matcher);
      expect(group!.hooks).toHaveLength(1);
      const hook = group!.hooks[0]!;
      // Only the gate's own event fails closed; a failure on the user's prompt must not drop it.
      const failure = event === 'PreToolUse' ? { onFailure: 'block' } : {};
      expect(hook).toEqual({ type: 'command', command: expect.stringMatching(/ claude$/), timeout: 10, ...failure });
      // sh, the launcher beside the bundle, Node: all by absolute path, no PATH lookup a written `node` could shadow.
      const [sh, launcher, node, ...rest] = hookCommandWords(hook.command as string);
      expect(rest).toEqual([]);
      expect(sh).toBe('/bin/sh');
      expect(launcher).toBe(join(dirname(HOOK_BIN), 'recap-hook.sh'));
      expect(node).toBe(process.execPath);
      for (const executable of [sh!, launcher!, node!]) {
        expect(isAbsolute(executable), executable).toBe(true);
        expect(existsSync(executable), executable).toBe(true);
      }
    }
    expect(recapHooksIn(after)).toHaveLength(RECAP_EVENTS.length);
  });

  it('creates the settings file when there is none', async () => {
    box = sandbox();
    const result = await runCli(box, ['install', 'claude', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ file: userSettingsFile(box), mode: 'command', changed: true });
    expect(recapHooksIn(readJson(userSettingsFile(box))).map((f) => f.event)).toEqual([
      'PreToolUse',
      'PostToolUse',
      'UserPromptSubmit',
      'SessionStart',
      'PreCompact',
      'PostCompact',
      'SessionEnd',
    ]);
  });

  it('installing twice changes nothing, and says so', async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    writeJson(file, existingSettings());
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);
    const once = readFileSync(file);
    const mtime = statSync(file).mtimeMs;

    const again = await runCli(box, ['install', 'claude']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`recap's command hooks were already in ${file}; nothing changed\n`);
    expect(readFileSync(file).equals(once)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
    const json = await runCli(box, ['install', 'claude', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ changed: false });
  });

  it('--scope project writes <project>/.claude/settings.json and leaves the user settings alone', async () => {
    box = sandbox();
    writeJson(projectSettingsFile(box), { permissions: { allow: ['Bash(make:*)'] } });
    const result = await runCli(box, ['install', 'claude', '--scope', 'project']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(projectSettingsFile(box));
    const after = readJson(projectSettingsFile(box));
    expect(after.permissions).toEqual({ allow: ['Bash(make:*)'] });
    expect(recapHooksIn(after)).toHaveLength(RECAP_EVENTS.length);
    expect(existsSync(userSettingsFile(box))).toBe(false);
    expect(existsSync(projectLocalFile(box))).toBe(false);
  });

  it('--scope project from a subfolder writes to the git top-level', async () => {
    box = sandbox();
    const sub = join(box.project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'], { cwd: sub })).code).toBe(0);
    expect(recapHooksIn(readJson(projectSettingsFile(box)))).toHaveLength(RECAP_EVENTS.length);
    expect(existsSync(join(sub, '.claude'))).toBe(false);
  });

  it('--http writes http hooks to the daemon endpoint with its bearer token, SessionStart stays a command', async () => {
    box = sandbox();
    const port = await freePort();
    daemon = await startDaemon(box, { RECAP_HTTP_PORT: String(port) });
    const file = userSettingsFile(box);
    writeJson(file, existingSettings());

    const result = await runCli(box, ['install', 'claude', '--http'], { env: { RECAP_HTTP_PORT: String(port) } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`recap's http hooks are in ${file}`);

    const tokenFile = join(box.data, 'http-token');
    const token = readFileSync(tokenFile, 'utf8');
    expect(token.trim()).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(modeOf(tokenFile)).toBe(0o600);
    const url = `http://127.0.0.1:${port}/hooks/claude`;

    const after = readJson(file);
    expect(withoutRecapGroups(after)).toEqual(existingSettings());
    for (const event of ['PreToolUse', 'PostToolUse', 'UserPromptSubmit']) {
      const failure = event === 'PreToolUse' ? { onFailure: 'block' } : {};
      expect(recapGroup(after, event)!.hooks, event).toEqual([{ type: 'http', url, headers: { Authorization: `Bearer ${token.trim()}` }, timeout: 10, ...failure }]);
    }
    expect(recapGroup(after, 'SessionStart')!.hooks).toEqual([
      { type: 'command', command: `/bin/sh ${join(dirname(HOOK_BIN), 'recap-hook.sh')} ${process.execPath} claude`, timeout: 10 },
    ]);
    expect(recapHooksIn(after)).toHaveLength(RECAP_EVENTS.length);

    // The header written is one the endpoint accepts.
    const hook = recapGroup(after, 'UserPromptSubmit')!.hooks[0] as { url: string; headers: Record<string, string> };
    const response = await fetch(hook.url, {
      method: 'POST',
      headers: { ...hook.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: box.project, session_id: 's', prompt: 'hello' }),
    });
    expect(response.status).toBe(200);

    // A second --http install is a no-op.
    const bytes = readFileSync(file);
    const again = await runCli(box, ['install', 'claude', '--http']);
    expect(again.stdout).toContain('nothing changed');
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('--http --scope project puts the http hooks in settings.local.json (0600) and takes recap out of settings.json', async () => {
    box = sandbox();
    const port = await freePort();
    daemon = await startDaemon(box, { RECAP_HTTP_PORT: String(port) });
    const shared = projectSettingsFile(box);
    const local = projectLocalFile(box);
    writeJson(shared, existingSettings());
    writeJson(local, { permissions: { allow: ['Bash(ls:*)'] }, env: { LOCAL_ONLY: '1' } }, 0o644);

    // First command hooks in the shared file, then the switch to HTTP.
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'])).code).toBe(0);
    expect(recapHooksIn(readJson(shared))).toHaveLength(RECAP_EVENTS.length);
    const result = await runCli(box, ['install', 'claude', '--scope', 'project', '--http']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(local);

    expect(readJson(shared)).toEqual(existingSettings());
    expect(recapHooksIn(readJson(shared))).toEqual([]);
    expect(readFileSync(shared, 'utf8')).not.toContain('Bearer');

    const token = readFileSync(join(box.data, 'http-token'), 'utf8').trim();
    const after = readJson(local);
    expect(modeOf(local)).toBe(0o600);
    expect(after.permissions).toEqual({ allow: ['Bash(ls:*)'] });
    expect(after.env).toEqual({ LOCAL_ONLY: '1' });
    expect(recapHooksIn(after).map(({ event, hook }) => [event, hook.type])).toEqual([
      ['PreToolUse', 'http'],
      ['PostToolUse', 'http'],
      ['UserPromptSubmit', 'http'],
      ['SessionStart', 'command'],
      ['PreCompact', 'command'],
      ['PostCompact', 'command'],
      ['SessionEnd', 'command'],
    ]);
    for (const { event, hook } of recapHooksIn(after)) {
      const failure = event === 'PreToolUse' ? { onFailure: 'block' } : {};
      if (hook.type === 'http')
        expect(hook).toEqual({ type: 'http', url: `http://127.0.0.1:${port}/hooks/claude`, headers: { Authorization: `Bearer ${token}` }, timeout: 10, ...failure });
    }

    // Back to command hooks: the local file loses recap's entries, the shared one gets them.
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'])).code).toBe(0);
    expect(recapHooksIn(readJson(local))).toEqual([]);
    expect(readJson(local)).toEqual({ permissions: { allow: ['Bash(ls:*)'] }, env: { LOCAL_ONLY: '1' } });
    expect(recapHooksIn(readJson(shared))).toHaveLength(RECAP_EVENTS.length);
  });
});

describe('recap install claude and the installed Claude Code version', () => {
  let box: Sandbox;
  afterEach(() => removeSandbox(box));

  /** A `claude` on the sandbox PATH that reports `version`, as `claude --version` does. */
  function claudeOnPath(version: string): NodeJS.ProcessEnv {
    const bin = join(box.dir, 'claude-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho '${version} (Claude Code)'\n`, { mode: 0o755 });
    return { PATH: `${bin}:${box.env.PATH ?? ''}` };
  }

  it('warns that an older Claude Code leaves the gate failing open, and installs all the same', async () => {
    box = sandbox();
    const result = await runCli(box, ['install', 'claude'], { env: claudeOnPath('2.1.294') });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Claude Code 2.1.294 ignores onFailure: "block"');
    expect(result.stderr).toContain('update Claude Code to 2.1.295 or newer');
    expect(recapHooksIn(readJson(userSettingsFile(box)))).toHaveLength(RECAP_EVENTS.length);
  });

  it('says nothing for a Claude Code that honours onFailure, nor when claude is not on PATH', async () => {
    box = sandbox();
    const current = await runCli(box, ['install', 'claude'], { env: claudeOnPath('2.1.330') });
    expect(current.code).toBe(0);
    expect(current.stderr).toBe('');
    const none = await runCli(box, ['install', 'claude'], { env: { PATH: '/usr/bin:/bin' } });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('');
  });
});

describe('recap uninstall claude', () => {
  let box: Sandbox;
  afterEach(() => removeSandbox(box));

  it("removes only recap's entries, giving back the settings as they were", async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    writeJson(file, existingSettings());
    expect((await runCli(box, ['install', 'claude'])).code).toBe(0);

    const result = await runCli(box, ['uninstall', 'claude']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`removed recap's hooks from ${file}\n`);
    expect(readJson(file)).toEqual(existingSettings());

    const again = await runCli(box, ['uninstall', 'claude']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('recap had no hooks there; nothing changed\n');
  });

  it('keeps a user hook that shares a group with recap', async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    const mine = { type: 'command', command: '/usr/local/bin/log-every-tool' };
    writeJson(file, { hooks: { PreToolUse: [{ matcher: '*', hooks: [mine, { type: 'command', command: `${HOOK_BIN} claude`, timeout: 10 }] }] } });
    expect((await runCli(box, ['uninstall', 'claude'])).code).toBe(0);
    expect(readJson(file)).toEqual({ hooks: { PreToolUse: [{ matcher: '*', hooks: [mine] }] } });
  });

  it('--scope project removes recap from settings.json and settings.local.json', async () => {
    box = sandbox();
    writeJson(projectSettingsFile(box), { model: 'opus' });
    expect((await runCli(box, ['install', 'claude', '--scope', 'project'])).code).toBe(0);
    writeJson(projectLocalFile(box), {
      env: { X: '1' },
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:40000/hooks/claude', headers: { Authorization: 'Bearer t' }, timeout: 10 }] }] },
    });
    const result = await runCli(box, ['uninstall', 'claude', '--scope', 'project']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`removed recap's hooks from ${projectSettingsFile(box)} and ${projectLocalFile(box)}\n`);
    expect(readJson(projectSettingsFile(box))).toEqual({ model: 'opus' });
    expect(readJson(projectLocalFile(box))).toEqual({ env: { X: '1' } });
  });

  it('with no settings file says nothing changed and creates none', async () => {
    box = sandbox();
    const result = await runCli(box, ['uninstall', 'claude']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('recap had no hooks there; nothing changed\n');
    expect(existsSync(userSettingsFile(box))).toBe(false);
  });
});

describe('a settings file that is not valid JSON', () => {
  let box: Sandbox;
  afterEach(() => removeSandbox(box));

  const BROKEN = '{\n  "model": "opus",\n  "hooks": { "PreToolUse": [ ,, ] \n';

  it.each([[['install', 'claude']], [['install', 'claude', '--json']], [['uninstall', 'claude']]])(
    'recap %j exits 1 with a message naming the file, and leaves it unchanged',
    async (args) => {
      box = sandbox();
      const file = userSettingsFile(box);
      mkdirSync(join(box.dir, '.claude'), { recursive: true });
      writeFileSync(file, BROKEN);
      const result = await runCli(box, args);
      expect(result.code).toBe(1);
      // With --json the failure is one JSON object on stdout; else one line on stderr.
      const said = args.includes('--json') ? `recap: ${(JSON.parse(result.stdout) as { error: { message: string } }).error.message}` : result.stderr;
      expect(args.includes('--json') ? result.stderr : result.stdout).toBe('');
      expect(said).toMatch(/^recap: cannot read /);
      expect(said).toContain(`cannot read ${file}: `);
      expect(said).toContain('is not valid JSON');
      expect(said).toContain('fix it or move it aside (recap changed nothing)');
      expect(said).not.toMatch(/^\s+at /m);
      expect(readFileSync(file, 'utf8')).toBe(BROKEN);
    },
  );

  // The README promises one line for a failure; JSON.parse's message quotes the file around
  // the mistake, newlines included, so the message runs over two lines here.
  it('the message is one line even when the excerpt of the file holds a newline', async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    mkdirSync(join(box.dir, '.claude'), { recursive: true });
    writeFileSync(file, BROKEN);
    const result = await runCli(box, ['install', 'claude']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a settings file holding a JSON array is refused the same way', async () => {
    box = sandbox();
    const file = userSettingsFile(box);
    mkdirSync(join(box.dir, '.claude'), { recursive: true });
    writeFileSync(file, '[1, 2]\n');
    const result = await runCli(box, ['install', 'claude']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`recap: ${file} does not hold a JSON object; fix it or move it aside (recap changed nothing)\n`);
    expect(readFileSync(file, 'utf8')).toBe('[1, 2]\n');
  });

  it('--scope project with a broken settings.json leaves settings.local.json unchanged too', async () => {
    box = sandbox();
    mkdirSync(join(box.project, '.claude'), { recursive: true });
    writeFileSync(projectSettingsFile(box), BROKEN);
    const localText = `${JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:40000/hooks/claude', headers: { Authorization: 'Bearer t' }, timeout: 10 }] }] } }, null, 2)}\n`;
    writeFileSync(projectLocalFile(box), localText);
    const result = await runCli(box, ['install', 'claude', '--scope', 'project']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('recap changed nothing');
    expect(readFileSync(projectSettingsFile(box), 'utf8')).toBe(BROKEN);
    expect(readFileSync(projectLocalFile(box), 'utf8')).toBe(localText);
  });
});
