// recap's entries in Claude Code's settings: added beside everything else, found again,
// removed without touching anything that is not recap's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/daemon.js';
import {
  commandHook,
  hookCommandWords,
  httpHook,
  isRecapHook,
  RECAP_EVENTS,
  recapHooksIn,
  withoutRecap,
  withRecap,
  type HookEntry,
  type Settings,
} from '../../src/agents/claude/settings.js';

const HOOK_BIN = '/opt/recap/bin/recap-hook.cjs';
const URL = 'http://127.0.0.1:47654/hooks/claude';
const TOKEN = 'c2VjcmV0LXRva2Vu';

const commands = () => commandHook(HOOK_BIN);
const http = (event: string): HookEntry => (['SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd'].includes(event) ? commandHook(HOOK_BIN) : httpHook(URL, TOKEN));

/** A user's own settings, with hooks of their own in every place recap also writes to. */
function userSettings(): Settings {
  return {
    $schema: 'https://json.schemastore.org/claude-code-settings.json',
    model: 'opus',
    permissions: { allow: ['Bash(npm test:*)', 'Read(~/notes/**)'], deny: ['Read(./.env)'], defaultMode: 'acceptEdits' },
    env: { NODE_ENV: 'development', DEBUG: 'app:*' },
    statusLine: { type: 'command', command: '~/.claude/statusline.sh' },
    someFutureKey: { nested: [1, 2, { deep: true }], flag: null },
    hooks: {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/audit-bash', timeout: 5 }] },
        { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --check "$CLAUDE_FILE"' }] },
      ],
      PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'npm run lint' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      Notification: [{ matcher: '', hooks: [{ type: 'http', url: 'https://hooks.example.com/notify', headers: { 'X-Key': '$KEY' } }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'cat ~/.claude/welcome.txt' }] }],
    },
  };
}

const clone = <T>(value: T): T => structuredClone(value);

describe('isRecapHook', () => {
  it('recognises the command hook recap writes, for a plain path', () => {
    expect(commandHook(HOOK_BIN)).toEqual({ type: 'command', command: `/bin/sh /opt/recap/bin/recap-hook.sh ${process.execPath} claude`, timeout: 10 });
    expect(isRecapHook(commandHook(HOOK_BIN))).toBe(true);
  });

  it('recognises the command hook for a path with spaces, which recap single-quotes', () => {
    const hook = commandHook('/home/ann/My Tools/recap/bin/recap-hook.cjs', '/usr/bin/node');
    expect(hook.type === 'command' && hook.command).toBe("/bin/sh '/home/ann/My Tools/recap/bin/recap-hook.sh' /usr/bin/node claude");
    expect(isRecapHook(hook)).toBe(true);
  });

  it("recognises the command hook for a path holding a single quote (quoted as '\\'')", () => {
    const hook = commandHook("/home/o'brien/recap/bin/recap-hook.cjs", "/home/o'brien/.nvm/node");
    expect(hook.type === 'command' && hook.command).toBe("/bin/sh '/home/o'\\''brien/recap/bin/recap-hook.sh' '/home/o'\\''brien/.nvm/node' claude");
    expect(hookCommandWords(hook.type === 'command' ? hook.command : '')).toEqual(['/bin/sh', "/home/o'brien/recap/bin/recap-hook.sh", "/home/o'brien/.nvm/node"]);
    expect(isRecapHook(hook)).toBe(true);
  });

  it('recognises a double-quoted path with spaces and the bare recap-hook on the PATH', () => {
    expect(isRecapHook({ type: 'command', command: '"/opt/my tools/recap-hook.cjs" claude' })).toBe(true);
    expect(isRecapHook({ type: 'command', command: 'recap-hook claude' })).toBe(true);
    // As recap wrote it before the launcher: Node and the bundle.
    expect(isRecapHook({ type: 'command', command: "/usr/bin/node '/opt/my tools/recap-hook.cjs' claude" })).toBe(true);
    expect(isRecapHook({ type: 'command', command: "/bin/sh '/opt/my tools/recap-hook.sh' /usr/bin/node codex" })).toBe(false);
    expect(isRecapHook({ type: 'command', command: '/usr/lib/node_modules/recap/bin/recap-hook.js claude' })).toBe(true);
  });

  it('recognises http hooks to the loopback endpoint on any port', () => {
    expect(isRecapHook(httpHook(URL, TOKEN))).toBe(true);
    expect(isRecapHook({ type: 'http', url: 'http://127.0.0.1:1/hooks/claude' })).toBe(true);
  });

  it('does not recognise other http hooks', () => {
    for (const url of [
      'https://127.0.0.1:47654/hooks/claude',
      'http://localhost:47654/hooks/claude',
      'http://127.0.0.1:47654/hooks/claude/extra',
      'http://127.0.0.1:47654/hooks/other',
      'http://127.0.0.1/hooks/claude',
      'http://example.com:47654/hooks/claude',
      'http://127.0.0.1:47654/hooks/claude?x=1',
    ]) {
      expect(isRecapHook({ type: 'http', url }), url).toBe(false);
    }
  });

  it('does not recognise look-alike commands', () => {
    for (const command of [
      'my-recap-hook-wrapper claude',
      'recap-hook claude --verbose',
      'recap-hook codex',
      '/opt/recap/bin/recap-hook.mjs claude',
      'recap-hook claude; rm -rf /tmp/x',
      'recap-hookclaude',
      'recap claude',
      '/usr/local/bin/audit-bash',
    ]) {
      expect(isRecapHook({ type: 'command', command }), command).toBe(false);
    }
  });

  // The regex has no boundary before "recap-hook": any executable whose name ends in it matches.
  it('does not recognise a user executable whose name merely ends in recap-hook', () => {
    expect(isRecapHook({ type: 'command', command: '/home/ann/bin/my-recap-hook claude' })).toBe(false);
  });

  it('does not recognise other shapes', () => {
    for (const hook of [
      null,
      undefined,
      'recap-hook claude',
      42,
      [],
      {},
      { command: `${HOOK_BIN} claude` },
      { type: 'prompt', command: `${HOOK_BIN} claude` },
      { type: 'command', command: 42 },
      { type: 'http', url: 42 },
      { type: 'command', url: URL },
      { type: 'http', command: `${HOOK_BIN} claude` },
    ]) {
      expect(isRecapHook(hook), JSON.stringify(hook)).toBe(false);
    }
  });
});

describe('withRecap', () => {
  it('adds PreToolUse (*), PostToolUse (AskUserQuestion), UserPromptSubmit, SessionStart, PreCompact, PostCompact and SessionEnd to empty settings', () => {
    const hook = commands();
    expect(withRecap({}, commands)).toEqual({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ ...hook, onFailure: 'block' }] }],
        PostToolUse: [{ matcher: 'AskUserQuestion', hooks: [hook] }],
        UserPromptSubmit: [{ hooks: [hook] }],
        SessionStart: [{ hooks: [hook] }],
        PreCompact: [{ hooks: [hook] }],
        PostCompact: [{ hooks: [hook] }],
        SessionEnd: [{ hooks: [hook] }],
      },
    });
    expect(RECAP_EVENTS.map((e) => e.event)).toEqual(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd']);
  });

  it('writes no onFailure when the Claude Code in use would ignore it', () => {
    expect(recapHooksIn(withRecap({}, commands, false)).every(({ hook }) => hook.onFailure === undefined)).toBe(true);
  });

  it('keeps every other key and every other hook exactly, and does not change its input', () => {
    const before = userSettings();
    const after = withRecap(before, commands);
    expect(before).toEqual(userSettings());

    const { hooks: hooksAfter, ...restAfter } = after;
    const { hooks: hooksBefore, ...restBefore } = userSettings();
    expect(restAfter).toEqual(restBefore);
    const h = hooksAfter as Record<string, unknown[]>;
    const b = hooksBefore as Record<string, unknown[]>;
    expect(h.Stop).toEqual(b.Stop);
    expect(h.Notification).toEqual(b.Notification);
    // Other groups of recap's events come first, unchanged; recap's group is added after them.
    expect(h.PreToolUse).toEqual([...b.PreToolUse!, { matcher: '*', hooks: [{ ...commands(), onFailure: 'block' }] }]);
    expect(h.PostToolUse).toEqual([...b.PostToolUse!, { matcher: 'AskUserQuestion', hooks: [commands()] }]);
    expect(h.SessionStart).toEqual([...b.SessionStart!, { hooks: [commands()] }]);
    expect(h.UserPromptSubmit).toEqual([{ hooks: [commands()] }]);
  });

  it('installing twice gives the same object, and the same JSON text', () => {
    const once = withRecap(userSettings(), commands);
    const twice = withRecap(clone(once), commands);
    expect(twice).toEqual(once);
    expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
    expect(recapHooksIn(twice)).toHaveLength(RECAP_EVENTS.length);
  });

  it('switching from command to http hooks replaces them, leaving one recap hook per event', () => {
    const viaCommand = withRecap(userSettings(), commands);
    const viaHttp = withRecap(viaCommand, http);
    expect(recapHooksIn(viaHttp).map(({ event, hook }) => [event, hook.type])).toEqual([
      ['PreToolUse', 'http'],
      ['PostToolUse', 'http'],
      ['SessionStart', 'command'],
      ['UserPromptSubmit', 'http'],
      ['PreCompact', 'command'],
      ['PostCompact', 'command'],
      ['SessionEnd', 'command'],
    ]);
    expect(withRecap(viaHttp, http)).toEqual(viaHttp);
    expect(withoutRecap(viaHttp)).toEqual(userSettings());
  });

  it("takes recap's hook out of a group it shares with a user's hook, keeping the user's hook in its group", () => {
    const mine = { type: 'command', command: '/usr/local/bin/log-tool-call', timeout: 3 };
    const shared: Settings = {
      hooks: {
        PreToolUse: [
          { matcher: '*', hooks: [mine, commands()] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] },
        ],
      },
    };
    const installed = withRecap(shared, commands);
    expect(installed.hooks!.PreToolUse).toEqual([
      { matcher: '*', hooks: [mine] },
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] },
      { matcher: '*', hooks: [{ ...commands(), onFailure: 'block' }] },
    ]);
    expect(withRecap(installed, commands)).toEqual(installed);
    expect(recapHooksIn(installed).filter((f) => f.event === 'PreToolUse')).toHaveLength(1);
  });

  it('leaves out an event whose entry is undefined', () => {
    const onlyPrompts = withRecap({}, (event) => (event === 'UserPromptSubmit' ? commands() : undefined));
    expect(onlyPrompts).toEqual({ hooks: { UserPromptSubmit: [{ hooks: [commands()] }] } });
  });

  it('replaces an older recap hook at a different path (the package moved)', () => {
    const old = withRecap(userSettings(), () => commandHook('/old/place/recap-hook.cjs'));
    const moved = withRecap(old, commands);
    expect(moved).toEqual(withRecap(userSettings(), commands));
    expect(JSON.stringify(moved)).not.toContain('/old/place');
  });
});

describe('failing closed', () => {
  it("only the PreToolUse hook, command or http, fails closed; the hooks on the user's own actions never do", () => {
    for (const entryFor of [commands, http]) {
      const installed = recapHooksIn(withRecap({}, entryFor));
      expect(installed.filter((f) => 'onFailure' in f.hook).map((f) => [f.event, f.hook.onFailure])).toEqual([['PreToolUse', 'block']]);
    }
  });

  it('recognises an older install (the bundle alone) and the new one (absolute node, then the bundle), so upgrade replaces it', () => {
    const old = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${HOOK_BIN} claude`, timeout: 10 }] }] } };
    expect(isRecapHook(old.hooks.PreToolUse[0]!.hooks[0])).toBe(true);
    const upgraded = withRecap(old, commands);
    expect(upgraded.hooks!.PreToolUse).toEqual([{ matcher: '*', hooks: [{ ...commands(), onFailure: 'block' }] }]);
    expect(withoutRecap(upgraded)).toEqual({});
  });
});

describe('withoutRecap', () => {
  it('uninstall after install gives back the original settings', () => {
    expect(withoutRecap(withRecap(userSettings(), commands))).toEqual(userSettings());
    expect(withoutRecap(withRecap(userSettings(), http))).toEqual(userSettings());
  });

  it('removes only recap entries and drops the groups and events that emptied', () => {
    const mine = { type: 'command', command: 'echo mine' };
    const settings: Settings = {
      permissions: { allow: ['Bash(ls:*)'] },
      hooks: {
        PreToolUse: [
          { matcher: '*', hooks: [commands()] },
          { matcher: 'Read', hooks: [mine, httpHook(URL, TOKEN)] },
        ],
        PostToolUse: [{ matcher: 'AskUserQuestion', hooks: [httpHook(URL, TOKEN)] }],
        UserPromptSubmit: [{ hooks: [commands()] }, { hooks: [mine] }],
        SessionStart: [{ hooks: [commands()] }],
      },
    };
    expect(withoutRecap(settings)).toEqual({
      permissions: { allow: ['Bash(ls:*)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Read', hooks: [mine] }],
        UserPromptSubmit: [{ hooks: [mine] }],
      },
    });
  });

  it('drops the hooks key when only recap was in it', () => {
    expect(withoutRecap(withRecap({ model: 'opus' }, commands))).toEqual({ model: 'opus' });
    expect(withoutRecap(withRecap({}, http))).toEqual({});
  });

  it('leaves settings without recap hooks as they are', () => {
    expect(withoutRecap(userSettings())).toEqual(userSettings());
    expect(withoutRecap({})).toEqual({});
    expect(withoutRecap({ env: { A: '1' } })).toEqual({ env: { A: '1' } });
  });

  it('keeps shapes it does not understand untouched', () => {
    const odd: Settings = {
      hooks: {
        PreToolUse: [null, 'text', { matcher: 'x' }, { matcher: '*', hooks: 'not a list' }, { matcher: '*', hooks: [commands()] }],
        Weird: { not: 'an array' },
        Empty: [{ hooks: [] }],
      },
    };
    expect(withoutRecap(odd)).toEqual({
      hooks: {
        PreToolUse: [null, 'text', { matcher: 'x' }, { matcher: '*', hooks: 'not a list' }],
        Weird: { not: 'an array' },
        Empty: [{ hooks: [] }],
      },
    });
    expect(withoutRecap({ hooks: 'nonsense' } as unknown as Settings)).toEqual({ hooks: 'nonsense' });
  });

  // An event the user left as an empty list (or an empty hooks object) was not emptied by
  // recap, yet uninstall (and install) drop it.
  it('keeps an event list the user left empty', () => {
    const settings: Settings = { hooks: { Stop: [], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }] } };
    expect(withoutRecap(withRecap(clone(settings), commands))).toEqual(settings);
  });
});

describe('recapHooksIn', () => {
  it('finds nothing in settings without recap', () => {
    expect(recapHooksIn({})).toEqual([]);
    expect(recapHooksIn(userSettings())).toEqual([]);
    expect(recapHooksIn({ hooks: { PreToolUse: [null, { hooks: 'x' }, 'y'] } } as unknown as Settings)).toEqual([]);
  });

  it('lists each event with its recap hook, command or http', () => {
    expect(recapHooksIn(withRecap(userSettings(), commands))).toEqual(
      ['PreToolUse', 'PostToolUse', 'SessionStart', 'UserPromptSubmit', 'PreCompact', 'PostCompact', 'SessionEnd'].map((event) => ({
        event,
        hook: event === 'PreToolUse' ? { ...commands(), onFailure: 'block' } : commands(),
      })),
    );
    const found = recapHooksIn(withRecap({}, http));
    expect(found).toEqual([
      { event: 'PreToolUse', hook: { ...httpHook(URL, TOKEN), onFailure: 'block' } },
      { event: 'PostToolUse', hook: httpHook(URL, TOKEN) },
      { event: 'UserPromptSubmit', hook: httpHook(URL, TOKEN) },
      { event: 'SessionStart', hook: commands() },
      { event: 'PreCompact', hook: commands() },
      { event: 'PostCompact', hook: commands() },
      { event: 'SessionEnd', hook: commands() },
    ]);
    expect(httpHook(URL, TOKEN)).toEqual({ type: 'http', url: URL, headers: { Authorization: `Bearer ${TOKEN}` }, timeout: 10 });
  });

  it('finds recap hooks wherever they are, including in a group shared with other hooks', () => {
    const settings: Settings = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }, commands()] }] } };
    expect(recapHooksIn(settings)).toEqual([{ event: 'Stop', hook: commands() }]);
  });
});

describe("recap's Claude Code plugin in the package", () => {
  const plugin = join(ROOT, 'claude-plugin', 'plugins', 'recap');
  const read = (file: string) => JSON.parse(readFileSync(join(plugin, file), 'utf8')) as Record<string, unknown>;

  it('hooks the same events as the settings install, with the same matchers, and fails closed only on PreToolUse', () => {
    const hooks = (read('hooks/hooks.json') as { hooks: Record<string, { matcher?: string; hooks: HookEntry[] }[]> }).hooks;
    expect(Object.keys(hooks).sort()).toEqual(RECAP_EVENTS.map((e) => e.event).sort());
    for (const { event, matcher, failClosed } of RECAP_EVENTS) {
      const [group, ...more] = hooks[event]!;
      expect(more).toEqual([]);
      expect(group!.matcher).toBe(matcher);
      expect(group!.hooks).toEqual([
        { type: 'command', command: '/bin/sh "${CLAUDE_PLUGIN_ROOT}/hooks/recap-hook.sh"', timeout: 10, ...(failClosed ? { onFailure: 'block' } : {}) },
      ]);
    }
  });

  it("has the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(read('.claude-plugin/plugin.json').version).toBe(pkg.version);
  });

  it('runs recap-hook with the Node install wrote down, and without one fails saying what the user must run', () => {
    const script = join(plugin, 'hooks', 'recap-hook.sh');
    const data = mkdtempSync(join(tmpdir(), 'recap-plugin-data-'));
    try {
      const missing = spawnSync('/bin/sh', [script], { env: { PATH: '/nonexistent', CLAUDE_PLUGIN_DATA: data }, input: '', encoding: 'utf8' });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('ask the user to run: recap install claude --plugin');
      writeFileSync(join(data, 'node'), process.execPath);
      // An empty PATH: no dirname, cat or node is looked up. recap-hook answers bad input with a deny.
      const ran = spawnSync('/bin/sh', [script], { env: { PATH: '/nonexistent', CLAUDE_PLUGIN_DATA: data }, input: 'not json', encoding: 'utf8' });
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toContain('"permissionDecision":"deny"');
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
