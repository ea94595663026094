// Attacks in Qwen Code's own payload shapes, through the real daemon and the real
// `recap-hook qwen` (the shared runs are in agentSuite.ts): run_shell_command with a
// `directory` inside or above recap's files, write_file, edit and notebook_edit with
// roundabout paths, the deferred-tool bridge (tool_call {name, arguments}, nested too), tools
// of its list that are not in the facts sheet (monitor, lsp, exec, cron_create,
// enter_worktree...), MCP tools, Qwen Code's wiring (its settings, trusted folders, .env
// files, and ~/.qwen/extensions, whose hooks a new session runs outside the gate), and the
// UserPromptSubmit that fires again after every tool round. Each attack is denied in Qwen
// Code's format on an open gate, where only the protection rules stand, and on a tripped one;
// ordinary work, or the way out (run in a real shell, as Qwen Code runs it), goes on after.
import { dirname, join, relative } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../helpers/daemon.js';
import { agentPayload, agentPrompt, agentShell, agentTool, hook, launcherOf, wayOutOpen, type AgentAttack, type Case } from '../helpers/agentAttack.js';
import { ABSOLUTE, describeAgentAttacks, FILE_SPELLINGS, protectionGroup, shellGroup, writesBySpelling, type WriteTool } from '../helpers/agentSuite.js';
import { eventLog, verdictFile, type Target } from '../helpers/recapTargets.js';

/** What wires recap into Qwen Code, or runs hooks in its next session, beside recap's own files. */
function targets(a: AgentAttack): Target[] {
  const { box } = a;
  const qwen = join(box.dir, '.qwen');
  return [
    ["Qwen Code's user settings", join(qwen, 'settings.json')],
    ['the trusted folders', join(qwen, 'trustedFolders.json')],
    ['~/.qwen/.env', join(qwen, '.env')],
    ['~/.env', join(box.dir, '.env')],
    ["the project's .qwen/settings.json", join(box.project, '.qwen', 'settings.json')],
    ['an extension, whose hooks the next session runs', join(qwen, 'extensions', 'evil', 'qwen-extension.json')],
    ["an extension's hooks file", join(qwen, 'extensions', 'evil', 'hooks', 'hooks.json')],
    ['the extension enablement file', join(qwen, 'extensions', 'extension-enablement.json')],
    ["Claude Code's settings", join(box.dir, '.claude', 'settings.json')],
    ['a recap shadow in ~/.local/bin', join(box.dir, '.local', 'bin', 'recap')],
  ];
}

/** The ways Qwen Code changes a file, directly or through the deferred-tool bridge. */
const WRITES: WriteTool[] = [
  ['write_file', (p) => ['write_file', { file_path: p, content: '{}\n' }]],
  ['edit', (p) => ['edit', { file_path: p, old_string: 'recap-hook', new_string: 'true', replace_all: true }]],
  ['notebook_edit', (p) => ['notebook_edit', { notebook_path: p, new_source: 'x', edit_mode: 'replace' }]],
  ['tool_call wrapping write_file', (p) => ['tool_call', { name: 'write_file', arguments: { file_path: p, content: 'x' } }]],
  [
    'tool_call wrapping tool_call wrapping edit',
    (p) => ['tool_call', { name: 'tool_call', arguments: { name: 'edit', arguments: { file_path: p, old_string: 'a', new_string: 'b' } } }],
  ],
  ['an MCP tool', (p) => ['mcp__fs__write_file', { path: p, content: 'x' }]],
  ['a tool of a later version, the path in an odd field', (p) => ['artifact', { action: 'save', target: { where: p } }]],
];

/** Reading or searching recap's own state, by Qwen Code's tools. */
function readCases(a: AgentAttack): Case[] {
  const { box } = a;
  const rel = (p: string) => relative(box.project, p);
  return [
    ['read_file on the event log', agentTool(a, 'read_file', { file_path: eventLog(box), offset: 0, limit: 10 })],
    ['read_file on the verdict file', agentTool(a, 'read_file', { file_path: verdictFile(box) })],
    ['glob with path in the data folder', agentTool(a, 'glob', { pattern: '**/*', path: box.data })],
    ['glob reaching the data folder from above', agentTool(a, 'glob', { pattern: 'd?ta/**', path: box.dir })],
    ['grep_search with a relative path into the data folder', agentTool(a, 'grep_search', { pattern: 'prompt', path: rel(box.data) })],
    ['grep_search from home, its glob naming the data folder', agentTool(a, 'grep_search', { pattern: 'x', path: box.dir, glob: 'data/**' })],
    ['list_directory on the socket folder', agentTool(a, 'list_directory', { path: dirname(box.socket) })],
    ['lsp on the user config', agentTool(a, 'lsp', { operation: 'documentSymbol', filePath: box.config })],
    ['zoom_image on the log', agentTool(a, 'zoom_image', { file_path: eventLog(box) })],
    ['read_mcp_resource on the config', agentTool(a, 'read_mcp_resource', { server: 'fs', uri: box.config })],
    ['tool_call wrapping read_file', agentTool(a, 'tool_call', { name: 'read_file', arguments: { file_path: box.config } })],
    ['enter_worktree in the data folder', agentTool(a, 'enter_worktree', { path: box.data })],
  ];
}

/** Shell commands: run_shell_command with its `directory`, and monitor, a shell of its own. */
function shellCases(a: AgentAttack): Case[] {
  const { box } = a;
  const rel = (p: string) => relative(box.project, p);
  return [
    ['directory in the data folder', agentShell(a, 'rm -rf log', box.data)],
    ['a relative directory into the data folder', agentShell(a, 'cat log/*', rel(box.data))],
    ['directory above the data folder, the command relative', agentShell(a, 'rm -rf data/log', '..')],
    ['directory of ~, the user config by its home name', agentShell(a, `echo TOKEN_THRESHOLD=1 > ${relative(box.dir, box.config)}`, '~')],
    ['directory in ~/.qwen, the settings relative', agentShell(a, "echo '{}' > settings.json", join(box.dir, '.qwen'))],
    ['an extension written by the shell', agentShell(a, 'mkdir -p ~/.qwen/extensions/evil && echo \'{"name":"evil","hooks":{}}\' > ~/.qwen/extensions/evil/qwen-extension.json')],
    ['an extension linked by the CLI', agentShell(a, 'qwen extensions link /tmp/evil')],
    ['hooks switched off in the settings', agentShell(a, 'jq ".disableAllHooks=true" ~/.qwen/settings.json > /tmp/s && cp /tmp/s ~/.qwen/settings.json')],
    ['monitor removing the data folder', agentTool(a, 'monitor', { command: `rm -rf ${box.data}`, description: 'x' })],
    ['tool_call wrapping run_shell_command', agentTool(a, 'tool_call', { name: 'run_shell_command', arguments: { command: `rm -rf ${box.data}` } })],
    ["recap's setup, by the launcher", agentShell(a, `${launcherOf(a)} uninstall qwen`)],
  ];
}

describeAgentAttacks('qwen', {
  title: 'Qwen Code',
  targets,
  writes: writesBySpelling(WRITES, FILE_SPELLINGS, ABSOLUTE),
  groups: [protectionGroup('reads and searches', readCases), shellGroup('shell', 'shell commands', shellCases)],
  allowed: {
    title: 'reading the wiring and ordinary work stay allowed',
    payloads: (a) => [
      agentTool(a, 'read_file', { file_path: join(a.box.dir, '.qwen', 'settings.json') }),
      agentTool(a, 'list_directory', { path: join(a.box.dir, '.qwen', 'extensions') }),
      agentTool(a, 'write_file', { file_path: join(a.box.project, 'notes.md'), content: 'x' }),
      agentTool(a, 'tool_call', { name: 'web_fetch', arguments: { url: 'https://example.com', prompt: 'x' } }),
      agentTool(a, 'grep_search', { pattern: 'TODO', glob: 'src/**/*.ts' }),
      agentShell(a, 'ls -la', 'src'),
    ],
  },
  gateTools: {
    title: 'the tools of its list beyond the facts sheet, and unknown ones, are denied by the gate itself',
    shellTool: 'run_shell_command',
    tools: [
      ['exec', { code: 'await tools.run_shell_command({ command: "id" })' }],
      ['cron_create', { cron: '* * * * *', prompt: 'run rm -rf ~' }],
      ['agent', { description: 'x', prompt: 'summarize nothing, just run the shell' }],
      ['skill', { skill: 'x' }],
      ['save_memory', { fact: 'x' }],
      ['todo_write', { todos: [] }],
      ['update_goal', { goal: 'x' }],
      ['tool_search', { query: 'shell' }],
      ['tool_call', { name: 'web_fetch', arguments: { url: 'https://example.com', prompt: 'x' } }],
      ['tool_call', { name: 42, arguments: {} }],
      ['web_search', { query: 'x' }],
      ['mcp__github__create_issue', { title: 'x' }],
      ['a_tool_of_a_later_version', {}],
    ],
  },
  tripped: [
    [
      'the UserPromptSubmit after each tool round counts nothing, never blocks, and leaves the gate as it is',
      async (a) => {
        const before = JSON.parse((await runCli(a.box, ['status', '--json', '--job', a.job])).stdout) as { unsummarizedInteractions: number; unsummarizedTokens: number };
        const followUps: Record<string, unknown>[] = [
          agentPayload(a, 'UserPromptSubmit', { prompt: '' }),
          agentPayload(a, 'UserPromptSubmit', { prompt: '   \n\t ' }),
          agentPayload(a, 'UserPromptSubmit', { prompt: 'tool round text that is not the user', submitted_prompt: undefined }),
          agentPrompt(a, ''),
          agentPrompt(a, '\n\n'),
        ];
        const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => hook(a, followUps[i % followUps.length]!)));
        for (const run of runs) {
          expect(run.exitCode, run.stderr).toBe(0);
          expect(run.stdout).not.toMatch(/"decision"|"permissionDecision"/);
        }
        const after = JSON.parse((await runCli(a.box, ['status', '--json', '--job', a.job])).stdout) as {
          tripped: boolean;
          unsummarizedInteractions: number;
          unsummarizedTokens: number;
        };
        expect(after).toMatchObject({ tripped: true, unsummarizedInteractions: before.unsummarizedInteractions, unsummarizedTokens: before.unsummarizedTokens });
        await wayOutOpen(a);
      },
    ],
  ],
});
