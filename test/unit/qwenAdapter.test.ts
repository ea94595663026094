// Qwen Code in recap's terms: every payload the real binary handed a hook
// (test/fixtures/agents/qwen) read into the right call, every tool it offers mapped to a
// kind with its paths and command, answers in its own format and within its size limits,
// recap's entries in its settings, and its transcript's usage.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedHook } from '../../src/agents/adapter.js';
import { NOTHING } from '../../src/agents/facts.js';
import { truncatedPrompt } from '../../src/common/truncatedPrompt.js';
import { ESCAPED_NOTE, fitted, QWEN_TEXT_MAX, qwenFacts, qwenToolCall } from '../../src/agents/qwen/facts.js';
import { parseQwenHook, questionsAndAnswers } from '../../src/agents/qwen/hook.js';
import {
  commandHook,
  hookCommandWords,
  isRecapHook,
  matchesAll,
  RECAP_EVENTS,
  recapHooksIn,
  timeoutMs,
  withoutRecap,
  withRecap,
  type Settings,
} from '../../src/agents/qwen/settings.js';
import { withoutComments } from '../../src/agents/kit/jsonComments.js';
import { usageOf } from '../../src/agents/qwen/transcript.js';
import { AGENT_SHELL_VARIABLES, sessionFromEnv } from '../../src/agents/known.js';
import { projectReadOnlyPaths, readOnlyPaths } from '../../src/agents/recapPaths.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const DIR = join(FIXTURES, 'qwen');
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
const PROJECT = '/tmp/FIXTURE/project';
const NOTES = `${PROJECT}/notes.md`;
const SESSION = '4a0b4ae9-d80c-4043-ba1f-921033014e8d';
const CALLER = {
  cwd: PROJECT,
  session: SESSION,
  agent: 'main',
  transcript: `/tmp/FIXTURE/home/.qwen/projects/-tmp-FIXTURE-project/chats/${SESSION}.jsonl`,
};

/** What each fixture must read as: a call with its caller, or nothing to do. */
const EXPECTED: Record<string, ParsedHook> = {
  SessionStart: { ok: true, call: { kind: 'sessionStart' }, caller: CALLER },
  // Before an auto-compression (custom_instructions "") and a `/compress keep the parser notes`.
  'PreCompact-auto': { ok: true, call: { kind: 'compacting' }, caller: CALLER },
  'PreCompact-manual': { ok: true, call: { kind: 'compacting' }, caller: CALLER },
  UserPromptSubmit: { ok: true, call: { kind: 'prompt', text: 'Exercise the hooks, please.' }, caller: CALLER },
  // Fired before the request after a tool round, with "prompt": "": not the user's.
  'UserPromptSubmit-followup': { ok: true, call: undefined, event: 'UserPromptSubmit' },
  Stop: { ok: true, call: undefined, event: 'Stop' },
  'PreToolUse-run_shell_command': {
    ok: true,
    call: { kind: 'tool', call: { name: 'run_shell_command', kind: 'shell', command: 'echo ran > ran.txt', paths: [], input: { command: 'echo ran > ran.txt' } } },
    caller: CALLER,
  },
  'PreToolUse-write_file': {
    ok: true,
    call: { kind: 'tool', call: { name: 'write_file', kind: 'write', paths: [NOTES], input: { file_path: NOTES, content: 'hello\n' } } },
    caller: CALLER,
  },
  'PreToolUse-edit': {
    ok: true,
    call: { kind: 'tool', call: { name: 'edit', kind: 'edit', paths: [NOTES], input: { file_path: NOTES, old_string: 'hello', new_string: 'bye' } } },
    caller: CALLER,
  },
  'PreToolUse-read_file': {
    ok: true,
    call: { kind: 'tool', call: { name: 'read_file', kind: 'read', paths: [NOTES], input: { file_path: NOTES } } },
    caller: CALLER,
  },
  'PreToolUse-glob': {
    ok: true,
    call: { kind: 'tool', call: { name: 'glob', kind: 'search', paths: [], glob: '*.md', input: { pattern: '*.md' } } },
    caller: CALLER,
  },
  'PreToolUse-grep_search': {
    ok: true,
    call: { kind: 'tool', call: { name: 'grep_search', kind: 'search', paths: [], input: { pattern: 'bye' } } },
    caller: CALLER,
  },
  ...Object.fromEntries(
    ['run_shell_command', 'write_file', 'edit', 'read_file', 'glob', 'grep_search'].map((tool) => [
      `PostToolUse-${tool}`,
      { ok: true, call: { kind: 'toolUsed' }, caller: CALLER },
    ]),
  ),
};

describe("Qwen Code's real hook payloads", () => {
  it('every fixture has its expectation here (a new fixture needs one)', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))('%s reads as expected', (name) => {
    expect(parseQwenHook(fixture(name))).toEqual(EXPECTED[name]);
  });

  it('a subagent is told apart by its agent_id', () => {
    const parsed = parseQwenHook({ ...fixture('PreToolUse-read_file'), agent_id: 'explorer-1' });
    expect(parsed).toMatchObject({ ok: true, caller: { agent: 'explorer-1' } });
  });

  it('a prompt counts the text the user submitted, not the model-bound one with its @-files read in', () => {
    const payload = { ...fixture('UserPromptSubmit'), prompt: 'Fix @src/a.ts\n--- src/a.ts ---\nexport const a = 1;', submitted_prompt: 'Fix @src/a.ts' };
    expect(parseQwenHook(payload)).toMatchObject({ ok: true, call: { kind: 'prompt', text: 'Fix @src/a.ts' } });
  });

  it('a prompt over 64 MiB, rebuilt by recap-hook from its first bytes (submitted_prompt cut off), counts as far as it arrived', () => {
    const text = 'Migrate the billing service. '.repeat(1000);
    const whole = JSON.stringify({ ...fixture('UserPromptSubmit'), prompt: text, submitted_prompt: text });
    const prefix = whole.slice(0, whole.indexOf('"prompt"') + 5000);
    const parsed = parseQwenHook(truncatedPrompt(prefix));
    expect(parsed).toMatchObject({ ok: true, call: { kind: 'prompt' }, caller: CALLER });
    const counted = (parsed as { call: { text: string } }).call.text;
    expect(counted.length).toBeGreaterThan(4900);
    expect(text.startsWith(counted)).toBe(true);
  });

  it('a PreToolUse whose tool_name is not a string is a tool call of an unexpected shape, judged as one', () => {
    const parsed = parseQwenHook({ ...fixture('PreToolUse-edit'), tool_name: 7 });
    expect(parsed).toMatchObject({ ok: false, event: 'PreToolUse', toolCall: true, session: SESSION, cwd: PROJECT });
  });

  it('a UserPromptSubmit without a cwd is of an unexpected shape, and no tool call', () => {
    const { cwd: _dropped, ...payload } = fixture('UserPromptSubmit');
    expect(parseQwenHook(payload)).toMatchObject({ ok: false, event: 'UserPromptSubmit', toolCall: false });
  });
});

describe("Qwen Code's tools in recap's terms", () => {
  it.each([
    [
      'run_shell_command',
      { command: 'make test', directory: '/tmp/FIXTURE/project/sub', is_background: false },
      { kind: 'shell', command: 'make test', dir: '/tmp/FIXTURE/project/sub', paths: [] },
    ],
    ['monitor', { command: 'tail -f log.txt', directory: '/w' }, { kind: 'shell', command: 'tail -f log.txt', dir: '/w', paths: [] }],
    ['write_file', { file_path: '/w/a.ts', content: 'x' }, { kind: 'write', paths: ['/w/a.ts'] }],
    ['edit', { file_path: '/w/a.ts', old_string: 'a', new_string: 'b', replace_all: true }, { kind: 'edit', paths: ['/w/a.ts'] }],
    ['notebook_edit', { notebook_path: '/w/n.ipynb', new_source: 'x' }, { kind: 'edit', paths: ['/w/n.ipynb'] }],
    ['read_file', { file_path: '/w/a.ts', offset: 3, limit: 9 }, { kind: 'read', paths: ['/w/a.ts'] }],
    ['list_directory', { path: '/w/src', ignore: ['*.map'] }, { kind: 'read', paths: ['/w/src'] }],
    ['zoom_image', { file_path: '/w/shot.png', x1: 0, y1: 0, x2: 9, y2: 9 }, { kind: 'read', paths: ['/w/shot.png'] }],
    ['lsp', { operation: 'hover', filePath: '/w/a.ts', line: 1, character: 1 }, { kind: 'read', paths: ['/w/a.ts'] }],
    ['glob', { pattern: 'src/**/*.ts', path: '/w' }, { kind: 'search', paths: ['/w'], glob: 'src/**/*.ts' }],
    ['grep_search', { pattern: 'TODO', path: '/w', glob: '*.ts', limit: 5 }, { kind: 'search', paths: ['/w'], glob: '*.ts' }],
    ['ask_user_question', { questions: [{ question: 'Which parser?', header: 'Parser', options: [] }] }, { kind: 'question', questions: ['Which parser?'], paths: [] }],
    ['web_fetch', { url: 'https://example.com', prompt: 'read' }, { kind: 'web', paths: [] }],
    ['web_search', { query: 'x' }, { kind: 'web', paths: [] }],
    ['read_mcp_resource', { server: 'fs', uri: 'file:///etc/hosts' }, { kind: 'mcp', paths: [] }],
    ['mcp__github__create_issue', { title: 'x' }, { kind: 'mcp', paths: [] }],
    ['agent', { description: 'explore', prompt: 'look around' }, { kind: 'other', paths: [] }],
    ['skill', { skill: 'pdf' }, { kind: 'other', paths: [] }],
    ['exec', { source: 'await tools.write_file({})' }, { kind: 'other', paths: [] }],
    ['save_memory', { fact: 'x' }, { kind: 'other', paths: [] }],
  ])('%s', (name, input, expected) => {
    expect(qwenToolCall(name, input)).toEqual({ name, input, ...expected });
  });

  it('a tool reached through the deferred-tool bridge (tool_call) is read as that tool', () => {
    const call = qwenToolCall('tool_call', { name: 'write_file', arguments: { file_path: '/w/a.ts', content: 'x' } });
    expect(call).toEqual({ name: 'write_file', kind: 'write', paths: ['/w/a.ts'], input: { file_path: '/w/a.ts', content: 'x' } });
    // A bridge naming itself, or nothing, stays a bridge call: an unknown tool.
    expect(qwenToolCall('tool_call', { name: 'tool_call', arguments: {} })).toMatchObject({ name: 'tool_call', kind: 'other' });
    expect(qwenToolCall('tool_call', { arguments: {} })).toMatchObject({ name: 'tool_call', kind: 'other' });
  });

  it('fields of the wrong type are left out, not trusted', () => {
    expect(qwenToolCall('run_shell_command', { command: ['rm'], directory: 7 })).toEqual({
      name: 'run_shell_command',
      kind: 'shell',
      paths: [],
      input: { command: ['rm'], directory: 7 },
    });
    expect(qwenToolCall('glob', 'not an object')).toEqual({ name: 'glob', kind: 'search', paths: [], input: 'not an object' });
  });
});

describe("recap's answers in Qwen Code's format", () => {
  const parse = (stdout: string) => JSON.parse(stdout) as Record<string, Record<string, unknown>>;

  it('a deny is a PreToolUse permissionDecision with the reason, exit 0', () => {
    const answer = qwenFacts.deny('recap: summarize first');
    expect(answer.exitCode).toBe(0);
    expect(parse(answer.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'recap: summarize first' },
    });
  });

  it('a notice is a systemMessage in a JSON object, never plain text (which Qwen Code reads as an allow, or as context)', () => {
    expect(parse(qwenFacts.notice('recap: the daemon is not reachable').stdout)).toEqual({ systemMessage: 'recap: the daemon is not reachable' });
    expect(qwenFacts.notice('')).toEqual(NOTHING);
    const withNote = qwenFacts.withNotice!(qwenFacts.context('prompt', 'memory'), 'a note');
    expect(parse(withNote.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'memory' }, systemMessage: 'a note' });
  });

  it('context goes into hookSpecificOutput.additionalContext of the event', () => {
    expect(parse(qwenFacts.context('sessionStart', 'the memory').stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'the memory' } });
    expect(parse(qwenFacts.context('prompt', 'needs a summary').stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'needs a summary' },
    });
  });

  it('context holding < or > says that Qwen Code escapes them', () => {
    const context = parse(qwenFacts.context('sessionStart', "/d/bin/recap submit <<'EOF'").stdout).hookSpecificOutput!.additionalContext as string;
    expect(context).toBe(`${ESCAPED_NOTE}\n\n/d/bin/recap submit <<'EOF'`);
    expect(ESCAPED_NOTE).not.toMatch(/[<>]/);
  });

  it('a reason longer than Qwen Code keeps whole is cut, with a line saying so', () => {
    const reason = `recap: ${'x'.repeat(300_000)}`;
    const kept = parse(qwenFacts.deny(reason).stdout).hookSpecificOutput!.permissionDecisionReason as string;
    expect(kept.length).toBeLessThanOrEqual(QWEN_TEXT_MAX);
    expect(kept.startsWith('recap: xxx')).toBe(true);
    expect(kept).toMatch(/\[recap cut the last \d+ characters to fit Qwen Code's hook output limit\]$/);
  });

  it.each([
    ['control characters (6 bytes each in JSON)', '\u0001'.repeat(400_000)],
    ['CJK (3 bytes each)', '漢'.repeat(400_000)],
    ['emoji (surrogate pairs)', '🙂'.repeat(200_000)],
  ])('every answer stays under the 1 MiB Qwen Code drops, however the text is made: %s', (_what, text) => {
    for (const answer of [qwenFacts.deny(text), qwenFacts.context('sessionStart', text), qwenFacts.context('prompt', text), qwenFacts.notice(text)]) {
      expect(Buffer.byteLength(answer.stdout)).toBeLessThan(1024 * 1024);
      expect(() => JSON.parse(answer.stdout)).not.toThrow();
    }
  });

  it('a cut never splits a surrogate pair', () => {
    const text = fitted(`a${'🙂'.repeat(100_000)}`);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(fitted('short')).toBe('short');
  });
});

describe("recap's entries in Qwen Code's settings", () => {
  const HOOK_BIN = '/opt/recap/bin/recap-hook.cjs';
  const entry = commandHook(HOOK_BIN, '/usr/bin/node');
  const userSettings = (): Settings => ({
    $version: 3,
    model: { name: 'qwen3-coder-plus' },
    security: { auth: { selectedType: 'openai' } },
    hooks: {
      PreToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', name: 'audit', command: '/usr/local/bin/audit', timeout: 5 }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    },
  });

  it('the entry runs the bundle with an absolute Node, names itself recap, and outlasts recap-hook', () => {
    expect(entry).toEqual({ type: 'command', name: 'recap', command: '/bin/sh /opt/recap/bin/recap-hook.sh /usr/bin/node qwen', timeout: 20 });
    expect(timeoutMs(entry.timeout)).toBeGreaterThan(8000);
    expect(hookCommandWords(commandHook("/home/o'neil/my tools/recap-hook.cjs", '/usr/bin/node').command)).toEqual([
      '/bin/sh',
      "/home/o'neil/my tools/recap-hook.sh",
      '/usr/bin/node',
    ]);
  });

  it("adds one group per event after the user's own, keeps everything else, and is idempotent", () => {
    const once = withRecap(userSettings(), entry);
    expect(withRecap(once, entry)).toEqual(once);
    expect(withoutRecap(once)).toEqual(userSettings());
    expect(recapHooksIn(once).map(({ event, matcher }) => [event, matcher])).toEqual(RECAP_EVENTS.map((e) => [e.event, e.matcher]));
    const preToolUse = (once.hooks!.PreToolUse as unknown[]).length;
    expect(preToolUse).toBe(2);
    expect((once.hooks!.PreToolUse as unknown[])[0]).toEqual(userSettings().hooks!.PreToolUse![0 as never]);
  });

  it('removal keeps a user hook that shares a group with recap, and drops what only recap filled', () => {
    const mine = { type: 'command', command: '/usr/local/bin/log-every-tool' };
    const settings = { hooks: { PreToolUse: [{ matcher: '*', hooks: [mine, entry] }], SessionStart: [{ hooks: [entry] }] } };
    expect(withoutRecap(settings)).toEqual({ hooks: { PreToolUse: [{ matcher: '*', hooks: [mine] }] } });
    expect(withoutRecap({ model: 'x', hooks: { SessionStart: [{ hooks: [entry] }] } })).toEqual({ model: 'x' });
  });

  it.each([
    ['/usr/bin/node /opt/recap/bin/recap-hook.cjs qwen', true],
    ["'/my node/node' '/opt/my recap/recap-hook.cjs' qwen", true],
    ['/usr/local/bin/recap-hook qwen', true],
    ['/usr/bin/node /opt/recap/bin/recap-hook.cjs claude', false],
    ['/usr/local/bin/not-recap-hook qwen', false],
    ['/usr/bin/node /opt/recap/bin/recap-hook.cjs qwen; rm -rf /', false],
  ])("%s is recap's: %s", (command, mine) => {
    expect(isRecapHook({ type: 'command', command })).toBe(mine);
  });

  it('matchers that match every tool, as Qwen Code reads them', () => {
    for (const all of [undefined, '', '*', '.*']) expect(matchesAll(all)).toBe(true);
    for (const some of ['run_shell_command', 'Bash|Write', 'write_.*']) expect(matchesAll(some)).toBe(false);
  });

  it('timeouts in seconds, or in milliseconds from 1000 up, 60 s when unset', () => {
    expect(timeoutMs(20)).toBe(20_000);
    expect(timeoutMs(5)).toBe(5000);
    expect(timeoutMs(1500)).toBe(1500);
    expect(timeoutMs(undefined)).toBe(60_000);
    expect(timeoutMs('20')).toBeUndefined();
    expect(timeoutMs(-1)).toBeUndefined();
  });

  it('reads JSON with comments as Qwen Code does, strings left whole', () => {
    const text = '{\n  // the model\n  "model": "a // not a comment", /* block\n comment */ "url": "http://x/*y*/"\n}\n';
    const { json, comments } = withoutComments(text);
    expect(comments).toBe(true);
    expect(JSON.parse(json)).toEqual({ model: 'a // not a comment', url: 'http://x/*y*/' });
    expect(withoutComments('{"a": "b\\"//c"}')).toEqual({ json: '{"a": "b\\"//c"}', comments: false });
  });
});

describe("Qwen Code's answered questions", () => {
  const input = {
    questions: [
      { question: 'Which parser?', header: 'Parser', options: [] },
      { question: 'Which formats?', header: 'Formats', options: [] },
    ],
  };

  it('each question with the answer the user gave', () => {
    const response = {
      llmContent: 'User has provided the following answers:\n\n**Parser**: Hand-written\n**Formats**: shell, json',
      returnDisplay: {
        type: 'ask_user_question_answers',
        text: '...',
        answers: [
          { question: 'Which parser?', answer: 'Hand-written' },
          { question: 'Which formats?', answer: 'shell, json' },
        ],
      },
    };
    expect(questionsAndAnswers(input, response)).toBe('Q: Which parser?\nA: Hand-written\n\nQ: Which formats?\nA: shell, json');
  });

  it('declined: what the model was told', () => {
    const declined = { llmContent: 'User declined to answer the questions.', returnDisplay: 'User declined to answer the questions.' };
    expect(questionsAndAnswers(input, declined)).toBe(
      'Q: Which parser?\nA: User declined to answer the questions.\n\nQ: Which formats?\nA: User declined to answer the questions.',
    );
  });

  it('a PostToolUse on ask_user_question reads as a question answered', () => {
    const payload = {
      ...fixture('PostToolUse-read_file'),
      tool_name: 'ask_user_question',
      tool_input: input,
      tool_response: { llmContent: 'x', returnDisplay: { answers: [{ question: 'Which parser?', answer: 'A library' }] } },
    };
    expect(parseQwenHook(payload)).toMatchObject({ ok: true, call: { kind: 'toolUsed', qa: 'Q: Which parser?\nA: A library\n\nQ: Which formats?\nA: (no answer)' } });
    expect(questionsAndAnswers({ nothing: 'here' }, {})).toBe('');
  });
});

describe("Qwen Code's transcript usage", () => {
  const assistant = (extra: Record<string, unknown>) => ({
    uuid: 'f6cee7f6-c668-4da3-8519-27cfdc472681',
    parentUuid: 'fe5ebbbf-4500-4029-b3b3-493f8d4a547f',
    sessionId: SESSION,
    type: 'assistant',
    provenance: 'assistant_output',
    model: 'mock-model',
    message: { role: 'model', parts: [{ text: 'Listed.' }] },
    ...extra,
  });

  it('an assistant record with usageMetadata: the uncached prompt, the cached part, the output; the whole prompt is the context', () => {
    const line = assistant({ usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 30, thoughtsTokenCount: 0, totalTokenCount: 1230, cachedContentTokenCount: 50 } });
    expect(usageOf(line)).toEqual({
      usage: { key: 'f6cee7f6-c668-4da3-8519-27cfdc472681', agent: 'main', model: 'mock-model', input: 1150, output: 30, cacheCreation: 0, cacheRead: 50 },
      context: 1200,
    });
  });

  it('says nothing of records without usage, of users, tools and system records', () => {
    expect(usageOf(assistant({}))).toBeUndefined();
    expect(usageOf({ ...assistant({ usageMetadata: { promptTokenCount: 5 } }), type: 'user' })).toBeUndefined();
    expect(usageOf({ type: 'system', subtype: 'ui_telemetry' })).toBeUndefined();
    expect(usageOf('not an object')).toBeUndefined();
  });

  it('a subagent record counts for the subagent and does not tell the main context', () => {
    const line = assistant({ isSidechain: true, agentId: 'explorer-1', usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 5 } });
    expect(usageOf(line)).toEqual({ usage: expect.objectContaining({ agent: 'explorer-1', input: 100, output: 5 }) });
  });

  it('numbers that are not counts count as nothing', () => {
    const line = assistant({ usageMetadata: { promptTokenCount: -3, candidatesTokenCount: 'many', cachedContentTokenCount: 99 } });
    expect(usageOf(line)?.usage).toMatchObject({ input: 0, output: 0, cacheRead: 0 });
  });
});

describe("what wires recap into Qwen Code, out of the agent's reach", () => {
  const ENV = { HOME: '/home/ann', PATH: '/usr/bin' };

  it('the user settings, trusted folders and home .env files (which may set QWEN_HOME), under ~/.qwen and QWEN_HOME, and the system layers', () => {
    const paths = readOnlyPaths({ ...ENV, QWEN_HOME: '~/qwen-cfg', QWEN_CODE_TRUSTED_FOLDERS_PATH: '/home/ann/trust.json' });
    for (const path of [
      '/home/ann/.qwen/settings.json',
      '/home/ann/.qwen/trustedFolders.json',
      '/home/ann/.qwen/.env',
      '/home/ann/.env',
      '/home/ann/qwen-cfg/settings.json',
      '/home/ann/qwen-cfg/.env',
      '/home/ann/trust.json',
      '/etc/qwen-code/settings.json',
      '/etc/qwen-code/system-defaults.json',
    ]) {
      expect(paths).toContain(path);
    }
    expect(readOnlyPaths({ ...ENV, QWEN_CODE_SYSTEM_SETTINGS_PATH: '/opt/qwen/settings.json' })).toEqual(
      expect.arrayContaining(['/opt/qwen/settings.json', '/opt/qwen/system-defaults.json']),
    );
  });

  it("a project's .qwen/settings.json, and any .qwen/settings.json by its shape", () => {
    expect(projectReadOnlyPaths('/src/app')).toContain('/src/app/.qwen/settings.json');
    const [name] = qwenFacts.settingsNames;
    expect(name!.path.test('/src/app/sub/.qwen/settings.json')).toBe(true);
    expect(name!.path.test('/home/ann/h/.qwen/trustedFolders.json')).toBe(true);
    expect(name!.path.test('/src/app/settings.json')).toBe(false);
  });

  it('its shell tool is marked by QWEN_CODE and carries the session in QWEN_CODE_SESSION_ID (seen in the real shell, test/e2e/qwen.test.ts)', () => {
    expect(AGENT_SHELL_VARIABLES).toEqual(expect.arrayContaining(['QWEN_CODE', 'QWEN_CODE_SESSION_ID']));
    expect(sessionFromEnv({ QWEN_CODE: '1', QWEN_CODE_SESSION_ID: '9fae6faf-759d' })).toBe('9fae6faf-759d');
  });
});
