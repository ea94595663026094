// GitHub Copilot CLI in recap's terms: every payload the real binary handed a hook
// (test/fixtures/agents/copilot) read into the right call, subagents kept apart, both
// dialects' tool names mapped to kinds with their paths and command, answers in its own
// format and always under its 64 KiB, recap's hooks file and the command in it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedHook } from '../../src/agents/adapter.js';
import { NOTHING } from '../../src/agents/facts.js';
import { ANSWER_MAX_BYTES, copilotFacts, copilotToolCall } from '../../src/agents/copilot/facts.js';
import { parseCopilotHook } from '../../src/agents/copilot/hook.js';
import { commandPaths, isRecapEntry, recapCommand, recapEntriesIn, recapHooksFile, runsRecapHook, withoutRecap } from '../../src/agents/copilot/hooksFile.js';
import { withRecap } from '../../src/agents/copilot/install.js';
import { AGENT_SHELL_VARIABLES, sessionFromEnv } from '../../src/agents/known.js';
import { projectReadOnlyPaths, readOnlyPaths } from '../../src/agents/recapPaths.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const DIR = join(FIXTURES, 'copilot');
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
const PROJECT = '/tmp/FIXTURE/project';
const NOTES = `${PROJECT}/notes.md`;
const MAIN = { cwd: PROJECT, session: 'e1a3e0ef-6f5f-48ec-918e-7ea36171c5c3', agent: 'main' };
const FIRST = { cwd: PROJECT, session: '04b90a3a-f5ba-46cc-8458-adf44a8ee24a', agent: 'main' };
const PARENT = 'f4085cd6-4513-4c3c-ba1a-743c2b8bd9d7';
const SUB = { cwd: PROJECT, session: PARENT, agent: '954a99c4-787a-47ef-8415-18f82c75db22' };

const tool = (call: Record<string, unknown>, caller = MAIN): ParsedHook => ({ ok: true, call: { kind: 'tool', call: call as never }, caller });

/** What each fixture must read as: a call with its caller, or nothing to do. */
const EXPECTED: Record<string, ParsedHook> = {
  SessionStart: { ok: true, call: { kind: 'sessionStart' }, caller: MAIN },
  UserPromptSubmit: { ok: true, call: { kind: 'prompt', text: 'Exercise the hooks, please.' }, caller: MAIN },
  // A subagent's prompt is its parent's instruction, not the user's.
  'UserPromptSubmit-subagent': { ok: true, call: undefined, event: 'UserPromptSubmit' },
  'PreToolUse-Bash': tool(
    { name: 'Bash', kind: 'shell', command: 'env > env.txt; echo $0 > shell.txt', paths: [], input: { command: 'env > env.txt; echo $0 > shell.txt', description: 'env' } },
    FIRST,
  ),
  'PreToolUse-Bash-subagent': tool({ name: 'Bash', kind: 'shell', command: 'echo sub > sub.txt', paths: [], input: { command: 'echo sub > sub.txt', description: 'sub' } }, SUB),
  'PreToolUse-Write': tool({ name: 'Write', kind: 'write', paths: [NOTES], input: { path: NOTES, file_text: 'hello\n' } }, FIRST),
  'PreToolUse-Edit': tool({ name: 'Edit', kind: 'edit', paths: [NOTES], input: { path: NOTES, old_str: 'hello', new_str: 'bye' } }),
  'PreToolUse-Read': tool({ name: 'Read', kind: 'read', paths: [NOTES], input: { path: NOTES } }),
  'PreToolUse-Glob': tool({ name: 'Glob', kind: 'search', paths: [], glob: '*.md', input: { pattern: '*.md' } }),
  'PreToolUse-Grep': tool({ name: 'Grep', kind: 'search', paths: [PROJECT], glob: '*.md', input: { pattern: 'bye', paths: PROJECT, glob: '*.md' } }),
  'PreToolUse-Agent': tool(
    {
      name: 'Agent',
      kind: 'other',
      paths: [],
      input: { description: 'Run a sub task', prompt: 'Run echo sub in the shell', agent_type: 'task', name: 'subby' },
    },
    { cwd: PROJECT, session: PARENT, agent: 'main' },
  ),
};

describe("GitHub Copilot CLI's real hook payloads", () => {
  it('every fixture has its expectation here (a new fixture needs one)', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))('%s reads as expected', (name) => {
    expect(parseCopilotHook(fixture(name))).toEqual(EXPECTED[name]);
  });

  it('events recap does not install (PostToolUse, Stop, the camelCase ones) are passed over', () => {
    for (const event of ['PostToolUse', 'Stop', 'SubagentStart', 'preToolUse']) {
      expect(parseCopilotHook({ ...fixture('PreToolUse-Bash'), hook_event_name: event })).toMatchObject({ ok: true, call: undefined });
    }
  });

  it('a tool call of an unexpected shape is reported as one, for the daemon to judge as an unknown tool', () => {
    expect(parseCopilotHook({ ...fixture('PreToolUse-Bash'), tool_name: 7 })).toMatchObject({ ok: false, toolCall: true, event: 'PreToolUse' });
  });
});

describe("Copilot CLI's tools, in both dialects", () => {
  it.each([
    ['Bash', 'shell'],
    ['bash', 'shell'],
    ['write_bash', 'shell'],
    ['Read', 'read'],
    ['view', 'read'],
    ['Write', 'write'],
    ['create', 'write'],
    ['Edit', 'edit'],
    ['edit', 'edit'],
    ['Glob', 'search'],
    ['grep', 'search'],
    ['web_fetch', 'web'],
    ['Agent', 'other'],
    ['read_bash', 'other'],
    ['skill', 'other'],
  ])('%s is a %s', (name, kind) => {
    expect(copilotToolCall(name, {}).kind).toBe(kind);
  });

  it('grep and glob name their folders in paths, one or a list; write_bash types its input as a command line', () => {
    expect(copilotToolCall('glob', { pattern: '**', paths: ['/a', '/b', 3] })).toMatchObject({ paths: ['/a', '/b'], glob: '**' });
    expect(copilotToolCall('Grep', { pattern: 'x', paths: '/c', glob: '*.ts' })).toMatchObject({ paths: ['/c'], glob: '*.ts' });
    expect(copilotToolCall('write_bash', { shellId: '0', input: 'rm -rf ~\n' })).toMatchObject({ kind: 'shell', command: 'rm -rf ~\n' });
  });
});

describe("recap's answers in Copilot CLI's format", () => {
  it('a deny is top-level (read under both dialects), never nested alone, never an allow', () => {
    expect(JSON.parse(copilotFacts.deny('no').stdout)).toEqual({ permissionDecision: 'deny', permissionDecisionReason: 'no' });
    expect(copilotFacts.deny('no').exitCode).toBe(0);
  });

  it('context at a prompt and a session start is a top-level additionalContext', () => {
    expect(JSON.parse(copilotFacts.context('prompt', 'hi').stdout)).toEqual({ additionalContext: 'hi' });
    expect(JSON.parse(copilotFacts.context('sessionStart', 'hi').stdout)).toEqual({ additionalContext: 'hi' });
  });

  it('an empty notice is nothing at all', () => {
    expect(copilotFacts.notice('')).toEqual(NOTHING);
  });

  it('a reason that would pass 64 KiB, escapes and multi-byte characters included, is cut to fit with a marker, and stays valid JSON', () => {
    const reason = `recap: the head of the reason.\n${'Quote "this", tab\there, é and 🙂.\n'.repeat(9000)}`;
    for (const answer of [copilotFacts.deny(reason), copilotFacts.context('sessionStart', reason), copilotFacts.notice(reason)]) {
      expect(Buffer.byteLength(answer.stdout)).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
      const text = Object.values(JSON.parse(answer.stdout) as Record<string, string>).at(-1)!;
      expect(text.startsWith('recap: the head of the reason.\n')).toBe(true);
      expect(text).toMatch(/\n\[recap cut the last \d+ characters to fit Copilot CLI's 64 KiB hook output limit\]$/);
      // No lone surrogate: the cut never splits a character.
      expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    }
  });

  it('a reason that fits is left whole', () => {
    const reason = 'x'.repeat(50_000);
    expect(JSON.parse(copilotFacts.deny(reason).stdout).permissionDecisionReason).toBe(reason);
  });

  it('its contextLimit leaves room for the JSON envelope and escapes under the cap', () => {
    expect(copilotFacts.contextLimit).toEqual({ max: 48_000, unit: 'bytes' });
    expect(copilotFacts.contextLimit!.max).toBeLessThan(ANSWER_MAX_BYTES);
  });
});

describe("Copilot CLI's bash tool and wiring", () => {
  it('its shell variables mark an agent shell, and COPILOT_AGENT_SESSION_ID carries the session', () => {
    expect(AGENT_SHELL_VARIABLES).toEqual(expect.arrayContaining(['COPILOT_CLI', 'COPILOT_AGENT_SESSION_ID']));
    expect(sessionFromEnv({ COPILOT_AGENT_SESSION_ID: 'abc' })).toBe('abc');
  });

  it('its hooks, settings, trust and plugins are read-only to the agent, in the user folder, COPILOT_HOME and the repository', () => {
    const paths = readOnlyPaths({ HOME: '/h', COPILOT_HOME: '/ch' });
    for (const dir of ['/h/.copilot', '/ch']) {
      for (const file of ['hooks', 'settings.json', 'config.json', 'installed-plugins']) expect(paths).toContain(`${dir}/${file}`);
    }
    expect(projectReadOnlyPaths('/p')).toEqual(
      // .github/mcp.json: a server named recap there would pass a tripped gate as recap's own tools.
      expect.arrayContaining(['/p/.github/hooks', '/p/.github/copilot/settings.json', '/p/.github/copilot/settings.local.json', '/p/.github/mcp.json']),
    );
  });
});

describe("recap's hooks file", () => {
  const command = recapCommand("/opt/it's recap/bin/recap-hook.cjs", '/usr/bin/node');

  it('the command names recap-hook and Node by absolute path, quoted, and is read back', () => {
    expect(commandPaths(command)).toEqual({ hook: "/opt/it's recap/bin/recap-hook.cjs", node: '/usr/bin/node' });
    expect(runsRecapHook(command)).toBe(true);
    expect(runsRecapHook('/usr/lib/node_modules/recap/bin/recap-hook.cjs copilot')).toBe(true);
    expect(runsRecapHook('/usr/bin/recap-hook qwen')).toBe(false);
    expect(commandPaths('/usr/bin/recap-hook copilot')).toBeUndefined();
  });

  it('has the four PascalCase events, no matcher, and a timeout well past recap-hook deadline', () => {
    const file = recapHooksFile(command);
    expect(Object.keys(file.hooks!)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'SessionEnd']);
    for (const entries of Object.values(file.hooks!)) expect(entries).toEqual([{ type: 'command', bash: command, timeoutSec: 30 }]);
  });

  it("keeps the user's hooks in the same file, replaces recap's own, and takes out only recap's", () => {
    const theirs = { type: 'command', bash: 'echo mine', timeoutSec: 5 };
    const claudeLayout = {
      matcher: 'Bash',
      hooks: [
        { type: 'command', command: '/old/recap-hook.cjs copilot' },
        { type: 'command', command: 'echo keep' },
      ],
    };
    const before = { version: 1, hooks: { PreToolUse: [theirs, claudeLayout], Stop: [theirs] } };
    const installed = withRecap(before, command);
    expect(installed.hooks!.PreToolUse).toEqual([
      theirs,
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo keep' }] },
      { type: 'command', bash: command, timeoutSec: 30 },
    ]);
    expect(installed.hooks!.Stop).toEqual([theirs]);
    expect(withRecap(installed, command)).toEqual(installed);
    expect(recapEntriesIn(before).map((f) => f.event)).toEqual(['PreToolUse']);
    const removed = withoutRecap(installed);
    expect(removed.hooks).toEqual({ PreToolUse: [theirs, { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo keep' }] }], Stop: [theirs] });
    expect(isRecapEntry({ type: 'command', bash: command })).toBe(true);
  });
});
