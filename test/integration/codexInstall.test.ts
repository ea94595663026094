// `recap install codex`, `recap uninstall codex` and `recap doctor` through the real CLI, on
// a sandboxed HOME's ~/.codex, judged by the real Codex: `codex app-server`'s hooks/list
// says which hooks Codex finds and whether the user's config.toml trusts each one.
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../../src/common/check.js';
import { assertCodexRuns } from '../helpers/codexCli.js';
import { codexHooksList, type ListedHook } from '../helpers/codexHooksList.js';
import { removeSandbox, ROOT, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';

const TEST_MS = 90_000;
const RECAP_COMMAND = `/bin/sh ${join(ROOT, 'bin', 'recap-hook.sh')} ${process.execPath} codex`;

const AUDIT = { type: 'command', command: '/usr/local/bin/audit-bash', timeout: 5 };
const userHooks = () => ({
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [AUDIT] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
});
const USER_CONFIG = `# my Codex settings
model = "gpt-5.5"
approval_policy = "on-request"   # ask first

[sandbox_workspace_write]
writable_roots = [
  "/home/ann/scratch",
]

[mcp_servers.docs]
command = "docs-mcp"
env = { DOCS_TOKEN = "x" }
`;

const codexDir = (box: Sandbox) => join(box.dir, '.codex');
const hooksPath = (box: Sandbox) => join(codexDir(box), 'hooks.json');
const configPath = (box: Sandbox) => join(codexDir(box), 'config.toml');
const writeHooks = (file: string, value: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

/** Codex's view: every hook's event, command and trust status, in Codex's order. */
async function codexSees(box: Sandbox, cwd = box.project, env: NodeJS.ProcessEnv = {}): Promise<ListedHook[]> {
  const { hooks, errors } = await codexHooksList({ ...box.env, ...env }, cwd);
  expect(errors).toEqual([]);
  return hooks;
}
const statusOf = (hooks: ListedHook[]) => hooks.map((h) => [h.key.replace(/^.*hooks\.json:/, ''), h.command === RECAP_COMMAND ? 'recap' : h.command, h.trustStatus]);

/** The user trusts a hook the way Codex's /hooks does: its current hash under its key. */
function trust(box: Sandbox, hook: ListedHook): void {
  writeFileSync(configPath(box), `${readFileSync(configPath(box), 'utf8')}\n[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}\n`);
}

const doctor = async (box: Sandbox): Promise<Check[]> => {
  const result = await runCli(box, ['doctor', '--json']);
  return (JSON.parse(result.stdout) as { checks: Check[] }).checks.filter((c) => c.name.startsWith('codex'));
};

beforeAll(() => {
  assertCodexRuns();
});

describe('recap install codex', () => {
  let box: Sandbox;
  afterEach(() => removeSandbox(box));

  /** A user with hooks of their own, the first one trusted, and a config.toml of their own. */
  async function userSetup(): Promise<void> {
    box = sandbox();
    writeHooks(hooksPath(box), userHooks());
    writeFileSync(configPath(box), USER_CONFIG);
    const [audit] = await codexSees(box);
    trust(box, audit!);
  }

  it(
    "adds recap's hooks after the user's and trusts them, keeping every byte of config.toml and the user's trust",
    async () => {
      await userSetup();
      const config = readFileSync(configPath(box), 'utf8');
      const result = await runCli(box, ['install', 'codex']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`recap's command hooks are in ${hooksPath(box)}; new Codex CLI sessions use them\n`);

      const hooks = readJson(hooksPath(box)).hooks;
      expect(hooks.PreToolUse![0]).toEqual(userHooks().hooks.PreToolUse[0]);
      expect(hooks.Stop).toEqual(userHooks().hooks.Stop);
      expect(readFileSync(configPath(box), 'utf8').startsWith(config)).toBe(true);
      expect(statusOf(await codexSees(box)).sort()).toEqual([
        ['pre_tool_use:0:0', AUDIT.command, 'trusted'],
        ['pre_tool_use:1:0', 'recap', 'trusted'],
        ['session_start:0:0', 'recap', 'trusted'],
        ['stop:0:0', 'notify-send done', 'untrusted'],
        ['user_prompt_submit:0:0', 'recap', 'trusted'],
      ]);
      // The context handlers keep a long context whole; every handler answers within its timeout.
      const listed = (await codexSees(box)).filter((h) => h.command === RECAP_COMMAND);
      expect(listed.map((h) => [h.eventName, h.timeoutSec, h.additionalContextLimit, h.matcher])).toEqual([
        ['preToolUse', 20, null, '*'],
        ['sessionStart', 20, 0, null],
        ['userPromptSubmit', 20, 0, null],
      ]);
    },
    TEST_MS,
  );

  it('creates both files when there are none, and installing again changes nothing, and says so', async () => {
    box = sandbox();
    expect(JSON.parse((await runCli(box, ['install', 'codex', '--json'])).stdout)).toEqual({ file: hooksPath(box), mode: 'command', changed: true });
    const files = [hooksPath(box), configPath(box)];
    const before = files.map((f) => [readFileSync(f, 'utf8'), statSync(f).mtimeMs]);
    const again = await runCli(box, ['install', 'codex']);
    expect(again.stdout).toBe(`recap's command hooks were already in ${hooksPath(box)}; nothing changed\n`);
    expect(files.map((f) => [readFileSync(f, 'utf8'), statSync(f).mtimeMs])).toEqual(before);
  });

  it('uninstall gives both files back as they were, byte for byte', async () => {
    await userSetup();
    const files = [hooksPath(box), configPath(box)].map((f) => readFileSync(f, 'utf8'));
    expect((await runCli(box, ['install', 'codex'])).code).toBe(0);
    expect((await runCli(box, ['uninstall', 'codex'])).stdout).toBe(`removed recap's hooks from ${hooksPath(box)}\n`);
    expect([hooksPath(box), configPath(box)].map((f) => readFileSync(f, 'utf8'))).toEqual(files);
    expect((await runCli(box, ['uninstall', 'codex'])).stdout).toBe('recap had no hooks there; nothing changed\n');
  });

  it(
    "uninstall keeps the trust of a group the user added after recap's: its entry moves with it",
    async () => {
      await userSetup();
      const config = readFileSync(configPath(box), 'utf8');
      expect((await runCli(box, ['install', 'codex'])).code).toBe(0);
      // The user adds a hook after recap's and trusts it: its key holds index 2.
      const hooks = readJson(hooksPath(box));
      hooks.hooks.PreToolUse!.push({ matcher: 'Edit', hooks: [{ command: 'prettier --check', type: 'command' } as never] });
      writeHooks(hooksPath(box), hooks);
      const later = (await codexSees(box)).find((h) => h.command === 'prettier --check')!;
      expect(later.key.endsWith(':pre_tool_use:2:0')).toBe(true);
      trust(box, later);

      const removed = await runCli(box, ['uninstall', 'codex']);
      expect(removed.stdout).toBe(`removed recap's hooks from ${hooksPath(box)}\n`);
      // recap's group left from before it: the entry moved to index 1 with it.
      expect(statusOf(await codexSees(box)).sort()).toEqual([
        ['pre_tool_use:0:0', AUDIT.command, 'trusted'],
        ['pre_tool_use:1:0', 'prettier --check', 'trusted'],
        ['stop:0:0', 'notify-send done', 'untrusted'],
      ]);
      expect(readFileSync(configPath(box), 'utf8')).toBe(
        `${config}\n[hooks.state.${JSON.stringify(later.key.replace(':2:0', ':1:0'))}]\ntrusted_hash = ${JSON.stringify(later.currentHash)}\n`,
      );

      // Installed again, recap goes last, and everyone is trusted where they stand.
      expect((await runCli(box, ['install', 'codex'])).code).toBe(0);
      expect(statusOf(await codexSees(box)).filter(([, , s]) => s !== 'trusted')).toEqual([['stop:0:0', 'notify-send done', 'untrusted']]);
    },
    TEST_MS,
  );

  it.each([
    ['hooks.json is not JSON', () => writeFileSync(hooksPath(box), '{"hooks": {'), 'cannot be read'],
    ['hooks.json has a key Codex refuses', () => writeHooks(hooksPath(box), { hooks: {}, version: 2 }), 'keys Codex does not accept beside "hooks" (version)'],
    ['an event is not a list of groups', () => writeHooks(hooksPath(box), { hooks: { PreToolUse: { hooks: [] } } }), '"PreToolUse" that is not a list of groups'],
    ['config.toml defines a table twice', () => writeFileSync(configPath(box), '[a]\n[a]\n'), 'cannot be read as TOML (line 2: the table [a] is defined twice)'],
    ['config.toml keeps hooks.state inline', () => writeFileSync(configPath(box), 'hooks = { state = {} }\n'), 'not all written as tables'],
  ])('refuses to touch either file when %s', async (_what, breakIt, message) => {
    box = sandbox();
    writeHooks(hooksPath(box), userHooks());
    writeFileSync(configPath(box), USER_CONFIG);
    breakIt();
    const files = [hooksPath(box), configPath(box)].map((f) => readFileSync(f, 'utf8'));
    const result = await runCli(box, ['install', 'codex']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('recap changed nothing');
    expect(result.stderr).not.toContain('    at ');
    expect([hooksPath(box), configPath(box)].map((f) => readFileSync(f, 'utf8'))).toEqual(files);
  });

  it(
    'follows CODEX_HOME to its real folder, as Codex does, and writes through a config.toml that is a symlink',
    async () => {
      box = sandbox();
      const real = join(box.dir, 'codex-real');
      const dotfiles = join(box.dir, 'dotfiles');
      mkdirSync(real);
      mkdirSync(dotfiles);
      symlinkSync(real, join(box.dir, 'codex-link'));
      writeFileSync(join(dotfiles, 'config.toml'), USER_CONFIG);
      symlinkSync(join(dotfiles, 'config.toml'), join(real, 'config.toml'));
      const env = { CODEX_HOME: join(box.dir, 'codex-link') };
      const result = await runCli(box, ['install', 'codex'], { env });
      expect(result.stdout).toContain(join(real, 'hooks.json'));
      expect(lstatSync(join(real, 'config.toml')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(dotfiles, 'config.toml'), 'utf8')).toContain(`[hooks.state."${join(real, 'hooks.json')}:pre_tool_use:0:0"]`);
      expect(statusOf(await codexSees(box, box.project, env)).map(([, , s]) => s)).toEqual(['trusted', 'trusted', 'trusted']);
    },
    TEST_MS,
  );

  it(
    "--scope project writes the project's .codex/hooks.json, trusts it in the user's config, and says Codex reads it only in a trusted project",
    async () => {
      box = sandbox();
      const result = await runCli(box, ['install', 'codex', '--scope', 'project']);
      expect(result.code).toBe(0);
      const file = join(box.project, '.codex', 'hooks.json');
      expect(result.stdout).toContain(file);
      expect(result.stderr).toContain(`recap: warning: Codex reads ${file} only in a trusted project`);
      expect(existsSync(hooksPath(box))).toBe(false);
      expect(await codexSees(box)).toEqual([]);
      expect((await doctor(box)).find((c) => c.name === 'codex trust')?.detail).toContain(`Codex reads ${file} only in a trusted project`);
      // A folder above the project is not enough for Codex.
      writeFileSync(configPath(box), `${readFileSync(configPath(box), 'utf8')}\n[projects.${JSON.stringify(box.dir)}]\ntrust_level = "trusted"\n`);
      expect(await codexSees(box)).toEqual([]);
      expect((await doctor(box)).find((c) => c.name === 'codex trust')?.ok).toBe(false);
      writeFileSync(configPath(box), `${readFileSync(configPath(box), 'utf8')}\n[projects.${JSON.stringify(box.project)}]\ntrust_level = "trusted"\n`);
      expect(statusOf(await codexSees(box)).map(([, , s]) => s)).toEqual(['trusted', 'trusted', 'trusted']);
      expect((await doctor(box)).every((c) => c.ok)).toBe(true);
    },
    TEST_MS,
  );
});

describe('recap doctor for Codex', () => {
  let box: Sandbox;
  afterEach(() => removeSandbox(box));

  const edit = (change: (hooks: ReturnType<typeof readJson>['hooks']) => void) => {
    const file = readJson(hooksPath(box));
    change(file.hooks);
    writeHooks(hooksPath(box), file);
  };
  const recapHandler = (hooks: ReturnType<typeof readJson>['hooks'], event: string) => hooks[event]!.at(-1)!.hooks[0]! as Record<string, unknown>;

  it('says nothing where neither recap nor Codex is set up, and says so where Codex is but recap is not', async () => {
    box = sandbox();
    expect(await doctor(box)).toEqual([]);
    mkdirSync(codexDir(box));
    writeFileSync(configPath(box), USER_CONFIG);
    expect(await doctor(box)).toEqual([
      { name: 'codex hooks', ok: false, detail: `Codex is set up in ${codexDir(box)}, but recap's hooks are not there`, fix: 'recap install codex' },
    ]);
  });

  it('finds every hook in place and trusted after an install', async () => {
    box = sandbox();
    await runCli(box, ['install', 'codex']);
    expect(await doctor(box)).toEqual([
      { name: 'codex hooks', ok: true, detail: `command hooks in ${hooksPath(box)}` },
      { name: 'codex trust', ok: true, detail: `every recap hook is trusted in ${configPath(box)}` },
    ]);
  });

  it.each([
    ['a missing hook', () => edit((h) => delete h.UserPromptSubmit), 'codex hooks', 'no UserPromptSubmit hook'],
    [
      'a hook whose bundle is gone',
      () => edit((h) => (recapHandler(h, 'PreToolUse').command = `${process.execPath} /gone/recap/bin/recap-hook.cjs codex`)),
      'codex hooks',
      'PreToolUse in',
    ],
    ['a hook that lost its trust entry', () => writeFileSync(configPath(box), ''), 'codex trust', 'is not trusted (no entry for'],
    ['a hook changed since it was trusted', () => edit((h) => (recapHandler(h, 'SessionStart').timeout = 30)), 'codex trust', 'SessionStart was changed since it was trusted'],
    [
      'a hook Codex was told to skip',
      () => writeFileSync(configPath(box), readFileSync(configPath(box), 'utf8').replace(/(pre_tool_use:0:0"\]\n)/, '$1enabled = false\n')),
      'codex trust',
      'turned off in Codex',
    ],
    [
      "Codex's hooks switched off",
      () => writeFileSync(configPath(box), `[features]\nhooks = false\n${readFileSync(configPath(box), 'utf8')}`),
      'codex trust',
      "turns Codex's hooks off",
    ],
    ['a hook Codex would give up on first', () => edit((h) => (recapHandler(h, 'PreToolUse').timeout = 5)), 'codex hooks', 'its timeout (5 s) is under the 20 s'],
    [
      'a context hook without additionalContextLimit',
      () => edit((h) => delete recapHandler(h, 'SessionStart').additionalContextLimit),
      'codex hooks',
      'without additionalContextLimit 0',
    ],
  ])('finds %s', async (_what, breakIt, name, words) => {
    box = sandbox();
    await runCli(box, ['install', 'codex']);
    breakIt();
    const check = (await doctor(box)).find((c) => c.name === name)!;
    expect(check).toMatchObject({ ok: false, fix: 'recap install codex (it writes the hooks and their trust entries again)' });
    expect(check.detail).toContain(words);
    if (_what === 'a hook whose bundle is gone') expect(check.detail).toContain('/gone/recap/bin/recap-hook.cjs does not exist');
    // Installing again repairs what is recap's; switching hooks back on is the user's to do.
    await runCli(box, ['install', 'codex']);
    expect((await doctor(box)).every((c) => c.ok)).toBe(!words.includes('hooks off'));
  });
});
