// recap's hooks in a Codex hooks.json and their trust entries in the user's config.toml:
// recap's group goes after the user's (or stays where it stands), its entries carry the
// right hashes, a user's entry follows its handler when recap's group leaves from before
// it, and every byte of config.toml that is not one of those entries stays as it was.
import { describe, expect, it } from 'vitest';
import { isRecapHandler, places, recapCommand, withoutRecap, withRecap, type HooksFile } from '../../src/agents/codex/hooksFile.js';
import { parseToml } from '../../src/agents/codex/toml.js';
import { handlerHash } from '../../src/agents/codex/trust.js';
import { retrust, TrustEditError, trustStates } from '../../src/agents/codex/trustEntries.js';

const FILE = '/home/ann/.codex/hooks.json';
const COMMAND = recapCommand('/opt/recap/bin/recap-hook.cjs', '/usr/bin/node');
const AUDIT = { type: 'command', command: '/usr/local/bin/audit', timeout: 5 };
const LATER = { type: 'command', command: 'notify-send later' };
const auditHash = handlerHash('PreToolUse', 'Bash', AUDIT as never);
const laterHash = handlerHash('PreToolUse', 'Edit', LATER as never);

const USER_CONFIG = `# my Codex
model = "gpt-5.5"

[projects."/home/ann/src/app"]
trust_level = "trusted"

[hooks.state]

[hooks.state."${FILE}:pre_tool_use:0:0"]
trusted_hash = "${auditHash}"
`;

const userHooks = (): HooksFile => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [AUDIT] }], Stop: [{ hooks: [LATER] }] } });
const states = (text: string) => Object.fromEntries([...trustStates(parseToml(text))].filter(([k]) => k.startsWith(FILE)));
const key = (event: string, group: number, handler = 0) => `${FILE}:${event}:${group}:${handler}`;

describe("recap's group in hooks.json", () => {
  it('goes after the user groups of each event, with a 20 s timeout and additionalContextLimit 0 where context is handed over', () => {
    const after = withRecap(userHooks(), COMMAND);
    expect(after.hooks!.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [AUDIT] },
      { matcher: '*', hooks: [{ type: 'command', command: COMMAND, timeout: 20 }] },
    ]);
    expect(after.hooks!.SessionStart).toEqual([{ hooks: [{ type: 'command', command: COMMAND, timeout: 20, additionalContextLimit: 0 }] }]);
    expect(after.hooks!.UserPromptSubmit).toEqual([{ hooks: [{ type: 'command', command: COMMAND, timeout: 20, additionalContextLimit: 0 }] }]);
    expect(after.hooks!.Stop).toEqual(userHooks().hooks!.Stop);
  });

  it('stays where it stands when installed again, so no user group after it moves, and is recognised by its command', () => {
    const once = withRecap(userHooks(), COMMAND);
    (once.hooks!.PreToolUse as unknown[]).push({ matcher: 'Edit', hooks: [LATER] });
    const moved = recapCommand('/usr/lib/node_modules/recap/bin/recap-hook.cjs', '/usr/local/bin/node');
    const again = withRecap(once, moved);
    expect((again.hooks!.PreToolUse as { hooks: { command: string }[] }[]).map((g) => g.hooks[0]!.command)).toEqual(['/usr/local/bin/audit', moved, 'notify-send later']);
    expect(isRecapHandler({ type: 'command', command: "'/opt/my recap/bin/recap-hook.cjs' codex" })).toBe(true);
    expect(isRecapHandler({ type: 'command', command: '/opt/recap/bin/recap-hook.cjs claude' })).toBe(false);
  });

  it('is taken out whole, leaving the user groups as they were', () => {
    expect(withoutRecap(withRecap(userHooks(), COMMAND))).toEqual(userHooks());
    expect(withoutRecap(withRecap({}, COMMAND))).toEqual({});
  });
});

describe("recap's trust entries in config.toml", () => {
  const install = (text: string, before: HooksFile) => {
    const after = withRecap(before, COMMAND);
    return { after, text: retrust(text, FILE, before, after) };
  };

  it('are added after everything else, each with the hash of the handler at its place', () => {
    const { after, text } = install(USER_CONFIG, userHooks());
    expect(text.startsWith(USER_CONFIG)).toBe(true);
    const recap = places(after).filter((p) => p.recap);
    expect(recap.map((p) => [p.event, p.group])).toEqual([
      ['PreToolUse', 1],
      ['SessionStart', 0],
      ['UserPromptSubmit', 0],
    ]);
    expect(states(text)).toEqual({
      [key('pre_tool_use', 0)]: { trustedHash: auditHash },
      [key('pre_tool_use', 1)]: { trustedHash: handlerHash('PreToolUse', '*', { type: 'command', command: COMMAND, timeout: 20 }) },
      [key('session_start', 0)]: { trustedHash: handlerHash('SessionStart', undefined, { type: 'command', command: COMMAND, timeout: 20, additionalContextLimit: 0 }) },
      [key('user_prompt_submit', 0)]: { trustedHash: handlerHash('UserPromptSubmit', undefined, { type: 'command', command: COMMAND, timeout: 20, additionalContextLimit: 0 }) },
    });
  });

  it('written again for the same hooks change nothing', () => {
    const { after, text } = install(USER_CONFIG, userHooks());
    expect(retrust(text, FILE, after, withRecap(after, COMMAND))).toBe(text);
  });

  it('are taken out on uninstall, giving back the file byte for byte', () => {
    for (const original of [USER_CONFIG, '', 'model = "x"\n', 'a = 1\r\n\r\n[t]\r\nb = 2\r\n']) {
      const { after, text } = install(original, userHooks());
      expect(retrust(text, FILE, after, withoutRecap(after))).toBe(original);
    }
  });

  it("are rewritten, not added twice, when recap's command changes (a new Node, a moved package)", () => {
    const { after, text } = install(USER_CONFIG, userHooks());
    const moved = recapCommand('/srv/recap/bin/recap-hook.cjs', '/usr/local/bin/node');
    const again = withRecap(after, moved);
    const rewritten = retrust(text, FILE, after, again);
    expect(states(rewritten)[key('pre_tool_use', 1)]).toEqual({ trustedHash: handlerHash('PreToolUse', '*', { type: 'command', command: moved, timeout: 20 }) });
    expect(rewritten.match(/pre_tool_use:1:0/g)).toHaveLength(1);
    expect(retrust(rewritten, FILE, again, withoutRecap(again))).toBe(USER_CONFIG);
  });

  it("move a user's entry with its handler when recap's group leaves from before it: trusted stays trusted, enabled = false stays", () => {
    const { after, text } = install(USER_CONFIG, userHooks());
    // The user adds a group after recap's, trusts it (as Codex's /hooks writes it) and turns their first one off.
    const withLater: HooksFile = { hooks: { ...after.hooks, PreToolUse: [...(after.hooks!.PreToolUse as unknown[]), { matcher: 'Edit', hooks: [LATER] }] } };
    const trusted = `${text.replace(`trusted_hash = "${auditHash}"\n`, `trusted_hash = "${auditHash}"\nenabled = false\n`)}\n[hooks.state."${key('pre_tool_use', 2)}"]\ntrusted_hash = "${laterHash}"\n`;
    const removed = withoutRecap(withLater);
    const untrusted = retrust(trusted, FILE, withLater, removed);
    expect(states(untrusted)).toEqual({
      [key('pre_tool_use', 0)]: { trustedHash: auditHash, enabled: false },
      [key('pre_tool_use', 1)]: { trustedHash: laterHash },
    });
    // Installed again, recap's group goes last and the user's entries stay where their handlers are.
    const back = withRecap(removed, COMMAND);
    const reinstalled = retrust(untrusted, FILE, removed, back);
    expect(states(reinstalled)[key('pre_tool_use', 1)]).toEqual({ trustedHash: laterHash });
    expect(states(reinstalled)[key('pre_tool_use', 2)]).toEqual({ trustedHash: handlerHash('PreToolUse', '*', { type: 'command', command: COMMAND, timeout: 20 }) });
  });

  it("never trust a user's handler that was not: an old entry at its new place goes", () => {
    const { after, text } = install(USER_CONFIG, userHooks());
    const withLater: HooksFile = { hooks: { ...after.hooks, PreToolUse: [...(after.hooks!.PreToolUse as unknown[]), { matcher: 'Edit', hooks: [LATER] }] } };
    // The later group is not trusted; an entry for place 1 is recap's, and would be wrong for it.
    const out = retrust(text, FILE, withLater, withoutRecap(withLater));
    expect(states(out)).toEqual({ [key('pre_tool_use', 0)]: { trustedHash: auditHash } });
  });

  it("leave other files' entries and entries for places no handler has alone", () => {
    const others = `${USER_CONFIG}\n[hooks.state."/srv/project/.codex/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:other"\n\n[hooks.state."${key('stop', 7)}"]\ntrusted_hash = "sha256:stale"\n`;
    const { after, text } = install(others, userHooks());
    expect(text.startsWith(others)).toBe(true);
    expect(retrust(text, FILE, after, withoutRecap(after))).toBe(others);
  });

  it.each([
    ['hooks written as an inline table', 'hooks = { state = {} }\n'],
    ['hooks.state written as an inline table', '[hooks]\nstate = {}\n'],
    ["one of this file's entries written with dotted keys", `[hooks]\nstate."${key('pre_tool_use', 0)}".trusted_hash = "${auditHash}"\n`],
  ])('refuse a config.toml with %s, which they cannot be added to safely', (_what, text) => {
    expect(() => install(text, userHooks())).toThrow(TrustEditError);
  });

  it("take hooks in config.toml's own [hooks] tables (another source) as they are", () => {
    const toml = '[hooks]\n[[hooks.PreToolUse]]\nmatcher = "Bash"\nhooks = [{ type = "command", command = "audit" }]\n';
    const { text } = install(toml, userHooks());
    expect(text.startsWith(toml)).toBe(true);
  });
});
