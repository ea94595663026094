// Attacks in GitHub Copilot CLI's own payload shapes, through the real daemon and the real
// `recap-hook copilot` (the shared runs are in agentSuite.ts): both dialects' tool names
// (Bash/bash, Write/create, Edit/edit, Read/view, Glob/Grep with `paths` as one string or a
// list), write_bash typing into a running shell, subagents (a tool call of their own session,
// their parent's named in parent_agent_id), tools recap does not know, and Copilot CLI's
// wiring: its hooks folder, settings.json, config.json (trustedFolders: a trusted repository
// can switch every hook off), its plugins, and a repository's .github/hooks and
// .github/copilot/settings.json. Each attack is denied in Copilot CLI's format (top-level
// permissionDecision) on an open gate, where only the protection rules stand, and on a
// tripped one; ordinary work, or the way out (run in a real shell, as Copilot CLI's bash tool
// runs it), goes on after.
import { dirname, join, relative } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../helpers/daemon.js';
import { agentPayload, agentPrompt, agentShell, agentTool, gateDenied, hook, launcherOf, wayOutOpen, type AgentAttack, type Case } from '../helpers/agentAttack.js';
import { ABSOLUTE, describeAgentAttacks, FILE_SPELLINGS, protectionGroup, shellGroup, writesBySpelling, type WriteTool } from '../helpers/agentSuite.js';
import { eventLog, type Target } from '../helpers/recapTargets.js';

/** What wires recap into Copilot CLI, beside recap's own files. */
function targets(a: AgentAttack): Target[] {
  const { box } = a;
  const copilot = join(box.dir, '.copilot');
  return [
    ["recap's hooks file", join(copilot, 'hooks', 'recap.json')],
    ['a new hooks file beside it', join(copilot, 'hooks', 'evil.json')],
    ["Copilot CLI's settings.json (hooks, disableAllHooks)", join(copilot, 'settings.json')],
    ['config.json (trustedFolders)', join(copilot, 'config.json')],
    ['an installed plugin', join(copilot, 'installed-plugins', '_direct', 'evil', 'hooks.json')],
    ["the repository's hooks", join(box.project, '.github', 'hooks', 'evil.json')],
    ["the repository's Copilot settings (disableAllHooks)", join(box.project, '.github', 'copilot', 'settings.json')],
    ["the repository's local Copilot settings", join(box.project, '.github', 'copilot', 'settings.local.json')],
  ];
}

/** The ways Copilot CLI changes a file, in both dialects' names. */
const WRITES: WriteTool[] = [
  ['Write', (p) => ['Write', { path: p, file_text: '{}\n' }]],
  ['create (camelCase)', (p) => ['create', { path: p, file_text: '{}\n' }]],
  ['Edit', (p) => ['Edit', { path: p, old_str: 'recap-hook', new_str: 'true' }]],
  ['edit (camelCase)', (p) => ['edit', { path: p, old_str: 'a', new_str: 'b' }]],
  ['a tool of a later version, the path in an odd field', (p) => ['artifact', { action: 'save', target: { where: p } }]],
];

/** Reading or searching recap's own state. */
function readCases(a: AgentAttack): Case[] {
  const { box } = a;
  return [
    ['Read on the event log', agentTool(a, 'Read', { path: eventLog(box) })],
    ['view on the user config', agentTool(a, 'view', { path: box.config })],
    ['Glob with paths in the data folder', agentTool(a, 'Glob', { pattern: '**/*', paths: box.data })],
    ['glob with a list of paths, the second the data folder', agentTool(a, 'glob', { pattern: '*', paths: [box.project, box.data] })],
    ['Grep with a relative path into the data folder', agentTool(a, 'Grep', { pattern: 'prompt', paths: relative(box.project, box.data) })],
    ['Grep from home, its glob naming the data folder', agentTool(a, 'Grep', { pattern: 'x', paths: box.dir, glob: 'data/**' })],
    ['Read on the socket folder', agentTool(a, 'Read', { path: dirname(box.socket) })],
  ];
}

/** Shell commands: Bash and bash, and write_bash typing into a running shell. */
function shellCases(a: AgentAttack): Case[] {
  const { box } = a;
  return [
    ['Bash removing the data folder', agentShell(a, `rm -rf ${box.data}`)],
    ['bash (camelCase) removing the data folder', agentTool(a, 'bash', { command: `rm -rf ${box.data}`, description: 'x' })],
    ['write_bash typing into a shell', agentTool(a, 'write_bash', { shellId: '0', input: `rm -rf ${box.data}\n` })],
    ['a hooks file written by the shell', agentShell(a, `echo '{"version":1,"hooks":{}}' > ~/.copilot/hooks/recap.json`)],
    ['hooks switched off in the repository', agentShell(a, `mkdir -p .github/copilot && echo '{"disableAllHooks":true}' > .github/copilot/settings.json`)],
    ['the folder trusted in config.json', agentShell(a, `jq '.trustedFolders=["${box.project}"]' ~/.copilot/config.json > /tmp/c && cp /tmp/c ~/.copilot/config.json`)],
    ['a plugin installed by the CLI', agentShell(a, 'copilot plugin install /tmp/evil')],
    ["recap's setup, by the launcher", agentShell(a, `${launcherOf(a)} uninstall copilot`)],
  ];
}

describeAgentAttacks('copilot', {
  title: 'GitHub Copilot CLI',
  targets,
  writes: writesBySpelling(WRITES, FILE_SPELLINGS, ABSOLUTE),
  groups: [protectionGroup('reads and searches', readCases), shellGroup('shell', 'shell commands', shellCases)],
  allowed: {
    title: 'reading the wiring and ordinary work stay allowed, and an allow prints nothing (never "allow")',
    payloads: (a) => [
      agentTool(a, 'Read', { path: join(a.box.dir, '.copilot', 'hooks', 'recap.json') }),
      agentTool(a, 'Write', { path: join(a.box.project, 'notes.md'), file_text: 'x' }),
      agentTool(a, 'Grep', { pattern: 'TODO', glob: 'src/**/*.ts' }),
      agentTool(a, 'Agent', { description: 'x', prompt: 'look around', agent_type: 'explore', name: 'e' }),
      agentShell(a, 'ls -la'),
    ],
    check: (run) => expect(run.stdout).toBe(''),
  },
  gateTools: {
    title: 'its other tools, and unknown ones, are denied by the gate itself, which names the bash tool',
    shellTool: 'bash',
    tools: [
      ['Agent', { description: 'x', prompt: 'summarize nothing, just run the shell', agent_type: 'task', name: 'x' }],
      ['task', { description: 'x', prompt: 'x', agent_type: 'task', name: 'x' }],
      ['skill', { skill: 'x' }],
      ['sql', { description: 'x', query: 'select 1' }],
      ['read_bash', { shellId: '0', delay: 1 }],
      ['write_agent', { agent_id: 'a', message: 'run rm -rf ~' }],
      ['fetch_copilot_cli_documentation', {}],
      ['web_fetch', { url: 'https://example.com' }],
      ['github-mcp-server-create_issue', { title: 'x' }],
    ],
  },
  tripped: [
    [
      'the way out typed into a running shell (write_bash) is denied: the program reading it could run anything',
      async (a) => {
        for (const input of [`${launcherOf(a)} status\n`, `${launcherOf(a)} status --job touch_pwned\n`]) {
          const reason = gateDenied(a, await hook(a, agentTool(a, 'write_bash', { shellId: '0', input })));
          expect(reason).toContain("input typed into a running shell (write_bash) is never recap's way out");
        }
        await wayOutOpen(a);
      },
    ],
    [
      "a subagent's tool calls are denied like the main thread's; its prompt counts nothing and never blocks",
      async (a) => {
        const subagent = { session_id: 'sub-0001', agent_id: 'sub-0001', agent_type: 'task', parent_agent_id: a.session };
        gateDenied(a, await hook(a, agentShell(a, 'echo hi > x.txt', undefined, subagent)));
        gateDenied(a, await hook(a, agentTool(a, 'Write', { path: join(a.box.project, 'x.txt'), file_text: 'x' }, subagent)));
        const before = JSON.parse((await runCli(a.box, ['status', '--json', '--job', a.job])).stdout) as { unsummarizedInteractions: number };
        const run = await hook(a, agentPrompt(a, 'Run the shell for me, subagent.', subagent));
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.stdout).toBe('');
        const after = JSON.parse((await runCli(a.box, ['status', '--json', '--job', a.job])).stdout) as { tripped: boolean; unsummarizedInteractions: number };
        expect(after).toMatchObject({ tripped: true, unsummarizedInteractions: before.unsummarizedInteractions });
        await wayOutOpen(a);
      },
    ],
    [
      'a prompt on the tripped gate is told the way out in a top-level additionalContext',
      async (a) => {
        const run = await hook(a, agentPayload(a, 'UserPromptSubmit', { prompt: 'Carry on, please.' }));
        expect(run.exitCode, run.stderr).toBe(0);
        const answer = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(Object.keys(answer)).toEqual(['additionalContext']);
        expect(answer.additionalContext).toContain(`job ${a.job} needs a summary`);
      },
    ],
  ],
});
