// Attacks in the shapes recap's opencode plugin sends, through the real daemon and the real
// `recap-hook opencode`: write, edit and apply_patch (its patch text naming the files) with
// roundabout paths, bash with a workdir inside recap's files or opencode's config, and what
// loads code into opencode: a plugin (or a custom tool) in the global config folder, in
// ~/.opencode, in a project's .opencode/ or named by an opencode.json, which would run inside
// opencode and could rewrite the args of a call recap checked. Each is denied on an open gate,
// where only the protection rules stand, and on a tripped one; the way out goes on after.
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentPrompt,
  agentShell,
  agentTool,
  agentUser,
  allowedAs,
  deniedAs,
  endAgentAttack,
  expectEveryDenied,
  fakeAttack,
  gateDenied,
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

const FAKE = fakeAttack('opencode');

/** Files the agent may not change: recap's own, and whatever loads code into opencode. */
function writeTargets(a: AgentAttack): [string, string][] {
  const { box } = a;
  const config = join(box.dir, 'xdg-config', 'opencode');
  return [
    ['the event log', join(box.data, 'log', '000001.jsonl')],
    ['the launcher', launcherOf(a)],
    ['the verdict file', join(dirname(box.socket), 'verdicts.json')],
    ['the user config', box.config],
    ["the project's .recap config", join(box.project, '.recap', 'config.conf')],
    ["recap's plugin", join(config, 'plugins', 'recap.js')],
    ['another global plugin, loaded next session', join(config, 'plugins', 'evil.ts')],
    ['a custom tool in the global folder', join(config, 'tool', 'evil.ts')],
    ["opencode's global config", join(config, 'opencode.json')],
    ['~/.opencode/plugins', join(box.dir, '.opencode', 'plugins', 'evil.js')],
    ["the project's .opencode/plugins", join(box.project, '.opencode', 'plugins', 'evil.js')],
    ["a project subfolder's .opencode", join(box.project, 'pkg', '.opencode', 'plugin', 'evil.js')],
    ["the project's opencode.json", join(box.project, 'opencode.json')],
    ["the project's opencode.jsonc", join(box.project, 'opencode.jsonc')],
  ];
}

const WRITES: [string, (p: string) => [string, Record<string, unknown>]][] = [
  ['write', (p) => ['write', { filePath: p, content: 'export const X = async () => ({})\n' }]],
  ['edit', (p) => ['edit', { filePath: p, oldString: 'throw', newString: 'return', replaceAll: true }]],
  ['apply_patch adding it', (p) => ['apply_patch', { patchText: `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch` }]],
  ['apply_patch moving a file onto it', (p) => ['apply_patch', { patchText: `*** Begin Patch\n*** Update File: notes.md\n*** Move to: ${p}\n@@\n-a\n+b\n*** End Patch` }]],
  ['a tool of an MCP server', (p) => ['fs_write_file', { path: p, content: 'x' }]],
];

function writeCases(a: AgentAttack, target: string, all: boolean): Case[] {
  const spellings: [string, string][] = [
    ['absolute', target],
    ['relative', relative(a.box.project, target)],
    ['from home', `~/${relative(a.box.dir, target)}`],
  ];
  return (all ? spellings : spellings.slice(0, 1)).flatMap(([how, p]) =>
    WRITES.map(([what, make]): Case => {
      const [tool, input] = make(p);
      return [`${what}, ${how}`, agentTool(a, tool, input)];
    }),
  );
}

function shellCases(a: AgentAttack): Case[] {
  const { box } = a;
  const config = join(box.dir, 'xdg-config', 'opencode');
  return [
    ['workdir in the data folder', agentShell(a, 'rm -rf log', box.data)],
    ['workdir in the plugins folder', agentShell(a, 'rm recap.js', join(config, 'plugins'))],
    ['a project plugin written by bash', agentShell(a, "mkdir -p .opencode/plugins && echo 'export const X = 1' > .opencode/plugins/x.js")],
    ["recap's plugin emptied", agentShell(a, `: > ${join(config, 'plugins', 'recap.js')}`)],
    ['a plugin named in opencode.json', agentShell(a, 'echo \'{"plugin":["file:///tmp/x.js"]}\' > opencode.json')],
    ['opencode uninstalling itself', agentShell(a, 'opencode uninstall --force')],
    ["recap's setup, by the launcher", agentShell(a, `${launcherOf(a)} uninstall opencode`)],
    ['the session variable rewritten', agentShell(a, 'export RECAP_OPENCODE_SESSION_ID=other && echo x > y')],
  ];
}

describe('opencode on an open gate: the protection rules hold in its shapes', () => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await agentUser('opencode');
  });
  afterAll(() => endAgentAttack(a));

  it.each(writeTargets(FAKE).map(([name], i) => [name, i] as const))('every write tool and spelling on %s', async (_name, index) => {
    await expectEveryDenied(a, writeCases(a, writeTargets(a)[index]![1], true), protectionDenied);
    await stillWorking(a);
  });

  it.each(shellCases(FAKE).map(([name], i) => [name, i] as const))('bash: %s', async (_name, index) => {
    deniedAs('opencode', await hook(a, shellCases(a)[index]![1]));
    await stillWorking(a);
  });

  it('reading the config and plugins, and ordinary work, stay allowed', async () => {
    const config = join(a.box.dir, 'xdg-config', 'opencode');
    for (const payload of [
      agentTool(a, 'read', { filePath: join(config, 'plugins', 'recap.js') }),
      agentTool(a, 'glob', { pattern: '*.js', path: join(config, 'plugins') }),
      agentTool(a, 'write', { filePath: join(a.box.project, 'notes.md'), content: 'x' }),
      agentTool(a, 'apply_patch', { patchText: '*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** End Patch' }),
      agentShell(a, 'ls -la', 'src'),
      agentShell(a, 'cat .opencode/plugins/x.js'),
    ]) {
      allowedAs(await hook(a, payload));
    }
  });
});

describe('opencode on a tripped gate: every attack is denied, and the way out stays open', () => {
  let a: AgentAttack;
  beforeAll(async () => {
    a = await trippedAgent('opencode');
  });
  afterAll(() => endAgentAttack(a));

  it.each(writeTargets(FAKE).map(([name], i) => [name, i] as const))('writes on %s', async (_name, index) => {
    await expectEveryDenied(a, writeCases(a, writeTargets(a)[index]![1], false));
    await wayOutOpen(a);
  });

  it('bash, and the tools beyond the facts sheet, are denied by the gate itself', async () => {
    await expectEveryDenied(a, shellCases(a));
    for (const [tool, input] of [
      ['task', { description: 'x', prompt: 'run the shell for me', subagent_type: 'general' }],
      ['skill', { name: 'x' }],
      ['todowrite', { todos: [] }],
      ['webfetch', { url: 'https://example.com' }],
      ['batch', { tool_calls: [{ tool: 'bash', parameters: { command: 'id' } }] }],
      ['github_create_issue', { title: 'x' }],
    ] as const) {
      expect(gateDenied(a, await hook(a, agentTool(a, tool, input)))).toContain('bash');
    }
    await wayOutOpen(a);
  });

  it("a subagent's call is judged in the job of the session that started it", async () => {
    const reason = gateDenied(a, await hook(a, agentTool(a, 'read', { filePath: join(a.box.project, 'README.md') }, { agent_id: 'ses_child' })));
    expect(reason).toContain(`job ${a.job} `);
    const prompt = await hook(a, agentPrompt(a, 'a subagent prompt, never counted', { agent_id: 'ses_child' }));
    expect(prompt).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it("after the whole family, the deny message's exact command, run in a real shell with the session, opens the gate", async () => {
    await proveAgentWayOut(a);
  });
});
