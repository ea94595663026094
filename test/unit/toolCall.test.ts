// Tool calls in recap's own terms: whatever an agent calls its tools, the protection rules
// judge what a call does (runs a command, reads, writes, patches) and where.
import { describe, expect, it } from 'vitest';
import { claudeToolCall } from '../../src/agents/claude/facts.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { patchPaths, type ToolCall } from '../../src/events/toolCall.js';

const HOME = '/home/ann';
const PROJECT = `${HOME}/src/app`;
const DATA = `${HOME}/.local/share/recap`;
const LAUNCHER = `${DATA}/bin/recap`;
const STATE: ProtectedState = {
  paths: [DATA, `${PROJECT}/.recap`],
  readOnly: [`${HOME}/.claude/settings.json`],
  home: HOME,
  settingsNames: [{ path: /\/\.agent\/hooks\.json$/, mentioned: [/\.agent\b/, /hooks\.json/], what: "the agent's hooks" }],
  shellVariables: ['AGENT_SHELL'],
};
const refusal = (call: ToolCall, cwd = PROJECT) => protectionRefusal(call, cwd, STATE, new Set([LAUNCHER]));

describe('patchPaths', () => {
  it('names every file a patch adds, updates, deletes or moves to', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: notes.md',
      '+hello',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-x',
      '+y',
      '*** Delete File: old.txt',
      '*** End Patch',
    ].join('\n');
    expect(patchPaths(patch)).toEqual(['notes.md', 'src/a.ts', 'src/b.ts', 'old.txt']);
  });

  it('names nothing in text that only looks like a patch inside a line', () => {
    expect(patchPaths('+ *** Add File: not/a/header.md\n')).toEqual([]);
  });

  it('reads a header as Codex does: the line trimmed of any white space, CRLF or not', () => {
    const lines = ['   *** Add File: a.md', '*** Update File: b.md\t', '*** Delete File: c.md\u00a0\u2003', '\t*** Move to: d.md\u0085', '*** Add File: e.md\r'];
    expect(patchPaths(lines.join('\n'))).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
    expect(patchPaths(lines.join('\r\n'))).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
  });

  it('judges a path with spaces after the colon both as Codex names it and without them', () => {
    expect(patchPaths('*** Add File:   ../x')).toEqual(['  ../x', '../x']);
  });
});

describe('protection judges what a call does, not what the agent calls it', () => {
  const patch = (path: string): ToolCall => ({ name: 'apply_patch', kind: 'patch', paths: patchPaths(`*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`) });

  it("refuses a patch that adds a file in recap's data folder, named relative to the project", () => {
    expect(refusal(patch('../../.local/share/recap/log/CURRENT'))).toContain(`touches recap's own files (${DATA})`);
  });

  it("refuses a patch on the project .recap folder, and lets one on the project's code through", () => {
    expect(refusal(patch('.recap/config.conf'))).toContain(`(${PROJECT}/.recap)`);
    expect(refusal(patch('src/index.ts'))).toBeUndefined();
  });

  it("refuses a write to an agent's settings by their shape, wherever they seem to be", () => {
    const write: ToolCall = { name: 'write_file', kind: 'write', paths: ['/tmp/h/.agent/hooks.json'] };
    expect(refusal(write)).toContain("would change the agent's hooks, which wire recap in");
    const read: ToolCall = { name: 'read_file', kind: 'read', paths: ['/tmp/h/.agent/hooks.json'] };
    expect(refusal(read)).toBeUndefined();
  });

  it("refuses a shell command run inside recap's data folder by the tool's own folder field", () => {
    const shell: ToolCall = { name: 'run_shell_command', kind: 'shell', command: 'rm -rf log', dir: DATA, paths: [] };
    expect(refusal(shell)).toContain(`runs inside recap's own files (${DATA})`);
  });

  it("takes a shell command's relative paths from the tool's own folder field", () => {
    const shell: ToolCall = { name: 'run_shell_command', kind: 'shell', command: 'cat recap/log/CURRENT', dir: `${HOME}/.local/share`, paths: [] };
    expect(refusal(shell)).toContain("touches recap's own files");
  });

  it("refuses a command that changes an agent's shell variables", () => {
    const shell: ToolCall = { name: 'Bash', kind: 'shell', command: 'unset AGENT_SHELL; ./install.sh', paths: [] };
    expect(refusal(shell)).toContain("the variables that mark the agent's shell");
  });
});

describe("Claude Code's tools in recap's terms", () => {
  it.each([
    ['Bash', { command: 'ls' }, { kind: 'shell', command: 'ls', paths: [] }],
    ['Read', { file_path: '/a' }, { kind: 'read', paths: ['/a'] }],
    ['Glob', { pattern: '**/*.ts', path: '/src' }, { kind: 'search', glob: '**/*.ts', paths: ['/src'] }],
    ['Write', { file_path: '/a', content: 'x' }, { kind: 'write', paths: ['/a'] }],
    ['NotebookEdit', { notebook_path: '/n.ipynb' }, { kind: 'edit', paths: ['/n.ipynb'] }],
    ['AskUserQuestion', { questions: [{ question: 'Which?' }] }, { kind: 'question', questions: ['Which?'] }],
    ['mcp__files__move', { from: '/a', to: '/b' }, { kind: 'mcp', paths: [] }],
    ['Task', { prompt: 'x' }, { kind: 'other', paths: [] }],
  ])('%s is %o', (name, input, expected) => {
    expect(claudeToolCall(name, input)).toMatchObject({ name, ...expected });
  });
});
