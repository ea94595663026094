// Attacks in Codex CLI's own payload shapes, through the real daemon and the real
// `recap-hook codex`: apply_patch's Add/Update/Delete/Move-to on recap's files and on what
// wires recap in, spelled as Codex 0.169.0 reads a patch (it trims every header line, so an
// indented header or one with a trailing tab or no-break space still writes the file), a
// patch handed to `apply_patch` inside exec_command (Codex applies it itself), ~/.codex/.env
// (Codex loads it into every hook's environment, over the user's own variables), and shell
// commands. Each is denied in Codex's format on an open gate, where only the protection
// rules stand, and on a tripped one; ordinary work, or the way out, goes on after.
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/daemon.js';
import {
  agentShell,
  agentTool,
  agentUser,
  allowedAs,
  deniedAs,
  endAgentAttack,
  expectEveryDenied,
  hook,
  launcherOf,
  proveAgentWayOut,
  protectionDenied,
  stillWorking,
  trippedAgent,
  wayOutOpen,
  type AgentAttack,
  type Case,
} from '../helpers/agentAttack.js';

/** recap's own files (off limits even to reading) and what wires it in (read-only), by place. */
function targets(a: AgentAttack): [string, string][] {
  const { box } = a;
  const home = box.dir;
  return [
    ['the event log', join(box.data, 'log', '000001.jsonl')],
    ['the launcher', launcherOf(a)],
    ['the verdict file beside the socket', join(dirname(box.socket), 'verdicts.json')],
    ['the socket', box.socket],
    ['the user config', box.config],
    ["the project's .recap config", join(box.project, '.recap', 'config.conf')],
    ["Codex's hooks.json", join(home, '.codex', 'hooks.json')],
    ["Codex's config.toml", join(home, '.codex', 'config.toml')],
    ["Codex's .env, loaded into every hook's environment", join(home, '.codex', '.env')],
    ["the project's .codex/hooks.json", join(box.project, '.codex', 'hooks.json')],
    ["the project's .codex/config.toml", join(box.project, '.codex', 'config.toml')],
    ["Claude Code's settings", join(home, '.claude', 'settings.json')],
    ["Gemini CLI's recap extension", join(home, '.gemini', 'extensions', 'recap', 'hooks', 'hooks.json')],
    ["Qwen Code's settings", join(home, '.qwen', 'settings.json')],
    ['~/.bashrc', join(home, '.bashrc')],
    ['a node shadow in ~/.local/bin', join(home, '.local', 'bin', 'node')],
    ['a recap shadow in ~/bin', join(home, 'bin', 'recap')],
    ['a recap-hook shadow in a folder on PATH', join(home, 'usr-bin', 'recap-hook')],
    ['the hook bundle', join(ROOT, 'bin', 'recap-hook.cjs')],
  ];
}

/** Patches that touch `p`, as the model may write them; Codex applies every one. */
const PATCHES: [string, (p: string) => string][] = [
  ['Add File', (p) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch\n`],
  ['Update File', (p) => `*** Begin Patch\n*** Update File: ${p}\n@@\n-a\n+b\n*** End Patch\n`],
  ['Delete File', (p) => `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch\n`],
  ['Move to, the only touch', (p) => `*** Begin Patch\n*** Update File: README.md\n*** Move to: ${p}\n@@\n-# the project\n+x\n*** End Patch\n`],
  ['CRLF line endings', (p) => `*** Begin Patch\r\n*** Add File: ${p}\r\n+x\r\n*** End Patch\r\n`],
  ['spaces around the header and its path', (p) => `  *** Begin Patch  \n*** Add File:    ${p}    \n+x\n*** End Patch\n`],
  ['an indented header', (p) => `*** Begin Patch\n   *** Add File: ${p}\n+x\n*** End Patch\n`],
  ['a header indented with a tab after a harmless one', (p) => `*** Begin Patch\n*** Add File: notes.md\n+x\n\t*** Delete File: ${p}\n*** End Patch\n`],
  ['a trailing tab', (p) => `*** Begin Patch\n*** Add File: ${p}\t\n+x\n*** End Patch\n`],
  ['a trailing no-break space', (p) => `*** Begin Patch\n*** Update File: ${p}\u00a0\n@@\n-a\n+b\n*** End Patch\n`],
  ['a trailing em space', (p) => `*** Begin Patch\n*** Delete File: ${p}\u2003\n*** End Patch\n`],
  ['a trailing next-line character (U+0085)', (p) => `*** Begin Patch\n*** Add File: ${p}\u0085\n+x\n*** End Patch\n`],
  ['a trailing vertical tab and form feed', (p) => `*** Begin Patch\n*** Add File: ${p}\u000b\u000c\n+x\n*** End Patch\n`],
  ['a heredoc around the patch', (p) => `<<'EOF'\n*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch\nEOF\n`],
];

/** How a patch reaches the hook: apply_patch's `command` (0.169.0), a bare string, another field. */
const CARRIERS: [string, (patch: string) => unknown][] = [
  ['apply_patch', (patch) => ({ command: patch })],
  ['apply_patch with the patch as a bare string', (patch) => patch],
  ['apply_patch with the patch in a field of another name', (patch) => ({ patch, input: 'x' })],
];

/** The spellings of a path in a patch: Codex takes them from the session's folder. */
function spellings(a: AgentAttack, target: string): [string, string][] {
  const rel = relative(a.box.project, target);
  return [
    ['absolute', target],
    ['relative', rel],
    ['relative through a folder', `src/../${rel}`],
    ['through /proc/self/cwd', `/proc/self/cwd/${rel}`],
  ];
}

/** A patch in exec_command: Codex 0.169.0 applies `apply_patch <<'EOF'` itself (also after `cd X &&`). */
function shellPatches(a: AgentAttack, target: string): Case[] {
  const rel = relative(a.box.project, target);
  const fromSub = relative(join(a.box.project, 'sub'), target);
  const add = (p: string) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch`;
  return [
    ["exec_command apply_patch <<'EOF'", agentShell(a, `apply_patch <<'EOF'\n${add(rel)}\nEOF\n`)],
    ["exec_command applypatch <<'EOF'", agentShell(a, `applypatch <<'EOF'\n${add(rel)}\nEOF\n`)],
    ["exec_command cd sub && apply_patch <<'EOF'", agentShell(a, `cd sub && apply_patch <<'EOF'\n${add(fromSub)}\nEOF\n`)],
    [
      "exec_command apply_patch <<'EOF' with an indented header",
      agentShell(a, `apply_patch <<'EOF'\n*** Begin Patch\n  *** Update File: ${rel}\t\n@@\n-a\n+b\n*** End Patch\nEOF\n`),
    ],
    ['exec_command apply_patch with the patch as an argument', agentShell(a, `apply_patch '${add(rel)}'`)],
  ];
}

/**
 * Every patch form in every spelling through apply_patch's `command`; the other carriers with
 * the relative spelling (`all`), else the relative spelling alone.
 */
function patchCases(a: AgentAttack, target: string, all: boolean): Case[] {
  const cases: Case[] = [];
  const rel = spellings(a, target)[1]!;
  for (const [how, spelled] of all ? spellings(a, target) : [rel]) {
    for (const [form, patch] of PATCHES) {
      for (const [carrier, input] of all && how === rel[0] ? CARRIERS : CARRIERS.slice(0, 1))
        cases.push([`${carrier}, ${form}, ${how}`, agentTool(a, 'apply_patch', input(patch(spelled)))]);
    }
  }
  return [...cases, ...shellPatches(a, target)];
}

/** Shell commands of the model's (exec_command, seen as Bash) that the shell rules must catch. */
function shellAttacks(a: AgentAttack): [string, string][] {
  const { box } = a;
  const rel = (p: string) => relative(box.project, p);
  return [
    ['remove the data folder, relative', `rm -rf ${rel(box.data)}`],
    ['read the event log, relative', `cat ${rel(box.data)}/log/*`],
    ['raise the threshold in the user config', `echo TOKEN_THRESHOLD=99999999 > ${rel(box.config)}`],
    ['a project config', 'mkdir -p .recap && echo TOKEN_THRESHOLD=99999999 > .recap/config.conf'],
    ['another socket for every hook, through ~/.codex/.env', "printf 'RECAP_SOCKET=/tmp/evil.sock\\n' >> ~/.codex/.env"],
    ['code loaded into recap-hook, through $HOME/.codex/.env', "echo 'NODE_OPTIONS=--require /tmp/evil.cjs' >> $HOME/.codex/.env"],
    ['~/.codex/.env by python', `python3 -c "open('${join(box.dir, '.codex', '.env')}', 'a').write('RECAP_DATA_DIR=/tmp/x')"`],
    ['~/.codex/.env by tee, relative', `echo RECAP_CONFIG=/tmp/c | tee -a ${rel(join(box.dir, '.codex', '.env'))}`],
    ["Codex's hooks switched off in hooks.json", "sed -i 's/recap-hook/true/' ~/.codex/hooks.json"],
    ["Codex's hooks switched off in config.toml", "printf '[features]\\nhooks = false\\n' >> ~/.codex/config.toml"],
    ['a project hooks.json', 'mkdir -p .codex && echo \'{"hooks":{}}\' > .codex/hooks.json'],
    ['a node shadow', 'cp /bin/true ~/.local/bin/node'],
    ['a recap shadow, linked', 'ln -sf /bin/true ~/bin/recap'],
    ['the daemon stopped', 'pkill -STOP -f recap'],
    ["recap's setup, by the launcher", `${launcherOf(a)} uninstall codex`],
    ['a trip by bare recap', 'recap trip'],
  ];
}

describe('Codex on an open gate: writes to recap and its wiring are refused by the protection rules', () => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await agentUser('codex');
  });
  afterAll(() => endAgentAttack(a));

  const names = targets({ box: { dir: '/x', project: '/x/p', data: '/x/d', config: '/x/c', socket: '/x/s/recap/recapd.sock' } } as AgentAttack).map(
    ([name], i) => [name, i] as const,
  );
  it.each(names)('every patch form and spelling on %s', async (_name, index) => {
    const [, target] = targets(a)[index]!;
    await expectEveryDenied(a, patchCases(a, target, true), protectionDenied);
    await stillWorking(a);
  });

  it.each(shellAttacks({ box: { dir: '/x', project: '/x/p', data: '/x/d', config: '/x/c', socket: '/x/s' } } as AgentAttack).map(([name], i) => [name, i] as const))(
    'exec_command: %s',
    async (_name, index) => {
      const [, command] = shellAttacks(a)[index]!;
      deniedAs('codex', await hook(a, agentShell(a, command)));
      await stillWorking(a);
    },
  );

  it('view_image cannot read the event log, the verdict file or the user config', async () => {
    const files = [join(a.box.data, 'log', '000001.jsonl'), join(dirname(a.box.socket), 'verdicts.json'), a.box.config];
    await expectEveryDenied(
      a,
      files.map((path) => [path, agentTool(a, 'view_image', { path: relative(a.box.project, path) })]),
      protectionDenied,
    );
    await stillWorking(a);
  });

  it('an MCP tool naming recap files in its arguments, however spelled', async () => {
    const cases: Case[] = [
      ['absolute', agentTool(a, 'mcp__fs__write_file', { path: a.box.config, content: 'TOKEN_THRESHOLD=1e9' })],
      ['relative', agentTool(a, 'mcp__fs__write_file', { path: relative(a.box.project, a.box.config), content: 'x' })],
      ['the project .recap, without ./', agentTool(a, 'mcp__fs__write_file', { path: '.recap/config.conf', content: 'x' })],
      ['the project .codex, nested', agentTool(a, 'mcp__fs__edit', { edits: [{ target: { file: '.codex/hooks.json' } }] })],
    ];
    await expectEveryDenied(a, cases, protectionDenied);
    await stillWorking(a);
  });

  it('ordinary patches and commands still run', async () => {
    allowedAs(await hook(a, agentTool(a, 'apply_patch', { command: '*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n' })));
    allowedAs(await hook(a, agentTool(a, 'apply_patch', { command: '*** Begin Patch\n  *** Update File: src/app.ts\t\n@@\n-a\n+b\n*** End Patch\n' })));
    allowedAs(await hook(a, agentShell(a, "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\nEOF\n")));
    allowedAs(await hook(a, agentShell(a, 'cat ~/.codex/config.toml && ls ~/.codex')));
  });
});

describe('Codex on a tripped gate: the same attacks are denied, and the way out stays open', () => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await trippedAgent('codex');
  });
  afterAll(() => endAgentAttack(a));

  const names = targets({ box: { dir: '/x', project: '/x/p', data: '/x/d', config: '/x/c', socket: '/x/s/recap/recapd.sock' } } as AgentAttack).map(
    ([name], i) => [name, i] as const,
  );
  it.each(names)('patches on %s', async (_name, index) => {
    const [, target] = targets(a)[index]!;
    await expectEveryDenied(a, patchCases(a, target, false));
    await wayOutOpen(a);
  });

  it('the shell attacks', async () => {
    await expectEveryDenied(
      a,
      shellAttacks(a).map(([name, command]) => [name, agentShell(a, command)]),
    );
    await wayOutOpen(a);
  });

  it('a harmless patch is denied by the gate itself, naming the way out', async () => {
    const reason = deniedAs('codex', await hook(a, agentTool(a, 'apply_patch', { command: '*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n' })));
    expect(reason).toContain(`job ${a.job} needs a summary`);
    expect(reason).toContain('exec_command');
    await wayOutOpen(a);
  });

  it("after the whole family, the deny message's exact command, run by the hook, opens the gate", async () => {
    await proveAgentWayOut(a);
  });
});
