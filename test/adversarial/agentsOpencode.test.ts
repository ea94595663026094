// Attacks in the shapes recap's opencode plugin sends, through the real daemon and the real
// `recap-hook opencode` (the shared runs are in agentSuite.ts): write, edit and apply_patch
// (its patch text naming the files) with roundabout paths, bash with a workdir inside recap's
// files or opencode's config, and what loads code into opencode: a plugin (or a custom tool)
// in the global config folder, in ~/.opencode, in a project's .opencode/ or named by an
// opencode.json, which would run inside opencode and could rewrite the args of a call recap
// checked. Each is denied on an open gate, where only the protection rules stand, and on a
// tripped one; the way out goes on after.
import { join } from 'node:path';
import { expect } from 'vitest';
import { agentPrompt, agentShell, agentTool, gateDenied, hook, launcherOf, type AgentAttack, type Case } from '../helpers/agentAttack.js';
import { ABSOLUTE, describeAgentAttacks, FROM_HOME, RELATIVE, shellGroup, writesBySpelling, type WriteTool } from '../helpers/agentSuite.js';
import type { Target } from '../helpers/recapTargets.js';

/** Whatever loads code into opencode, beside recap's own files. */
function targets(a: AgentAttack): Target[] {
  const { box } = a;
  const config = join(box.dir, 'xdg-config', 'opencode');
  return [
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

/** The ways opencode changes a file, and a tool of an MCP server. */
const WRITES: WriteTool[] = [
  ['write', (p) => ['write', { filePath: p, content: 'export const X = async () => ({})\n' }]],
  ['edit', (p) => ['edit', { filePath: p, oldString: 'throw', newString: 'return', replaceAll: true }]],
  ['apply_patch adding it', (p) => ['apply_patch', { patchText: `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch` }]],
  ['apply_patch moving a file onto it', (p) => ['apply_patch', { patchText: `*** Begin Patch\n*** Update File: notes.md\n*** Move to: ${p}\n@@\n-a\n+b\n*** End Patch` }]],
  ['a tool of an MCP server', (p) => ['fs_write_file', { path: p, content: 'x' }]],
];

/** bash, with a workdir inside recap's files or opencode's config, and what it writes. */
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

describeAgentAttacks('opencode', {
  title: 'opencode',
  targets,
  writes: writesBySpelling(WRITES, [ABSOLUTE, RELATIVE, FROM_HOME], ABSOLUTE),
  groups: [shellGroup('bash', 'bash commands', shellCases)],
  allowed: {
    title: 'reading the config and plugins, and ordinary work, stay allowed',
    payloads: (a) => {
      const config = join(a.box.dir, 'xdg-config', 'opencode');
      return [
        agentTool(a, 'read', { filePath: join(config, 'plugins', 'recap.js') }),
        agentTool(a, 'glob', { pattern: '*.js', path: join(config, 'plugins') }),
        agentTool(a, 'write', { filePath: join(a.box.project, 'notes.md'), content: 'x' }),
        agentTool(a, 'apply_patch', { patchText: '*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** End Patch' }),
        agentShell(a, 'ls -la', 'src'),
        agentShell(a, 'cat .opencode/plugins/x.js'),
      ];
    },
  },
  gateTools: {
    title: 'the tools beyond the facts sheet are denied by the gate itself, which names bash',
    shellTool: 'bash',
    tools: [
      ['task', { description: 'x', prompt: 'run the shell for me', subagent_type: 'general' }],
      ['skill', { name: 'x' }],
      ['todowrite', { todos: [] }],
      ['webfetch', { url: 'https://example.com' }],
      ['batch', { tool_calls: [{ tool: 'bash', parameters: { command: 'id' } }] }],
      ['github_create_issue', { title: 'x' }],
    ],
  },
  tripped: [
    [
      "a subagent's call is judged in the job of the session that started it",
      async (a) => {
        const reason = gateDenied(a, await hook(a, agentTool(a, 'read', { filePath: join(a.box.project, 'README.md') }, { agent_id: 'ses_child' })));
        expect(reason).toContain(`job ${a.job} `);
        const prompt = await hook(a, agentPrompt(a, 'a subagent prompt, never counted', { agent_id: 'ses_child' }));
        expect(prompt).toMatchObject({ exitCode: 0, stdout: '' });
      },
    ],
  ],
});
