// Gemini CLI behind recap's seam: its real payloads (test/fixtures/agents/gemini) read into
// recap's calls, every tool it offers in recap's terms, its answers in its own format, its
// transcript's usage, and the command line its extension runs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiFacts, geminiToolCall } from '../../src/agents/gemini/facts.js';
import { parseGeminiHook, userPrompt } from '../../src/agents/gemini/hook.js';
import { geminiUsageOf } from '../../src/agents/gemini/transcript.js';
import { commandTarget, hookCommand, hookEnvironment, hooksFile, runsRecapHook, TIMEOUT_MS } from '../../src/agents/gemini/extension.js';
import { projectReadOnlyPaths, protectionFor, readOnlyPaths } from '../../src/agents/recapPaths.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const FOLDER = join(FIXTURES, 'gemini');
const fixture = (name: string) => JSON.parse(readFileSync(join(FOLDER, `${name}.json`), 'utf8')) as Record<string, unknown>;
const PROJECT = '/tmp/FIXTURE/project';
const NOTES = `${PROJECT}/notes.md`;
const CALLER = {
  cwd: PROJECT,
  session: '15370887-e588-4dc7-8262-e1533530e376',
  agent: 'main',
  transcript: '/tmp/FIXTURE/home/.gemini/tmp/project/chats/session-2026-11-23T15-36-15370887.jsonl',
};

describe('the real Gemini CLI payloads', () => {
  it('are all covered here', () => {
    expect(readdirSync(FOLDER).sort()).toEqual(
      [
        'AfterAgent',
        'AfterTool-glob',
        'AfterTool-grep_search',
        'AfterTool-read_file',
        'AfterTool-replace',
        'AfterTool-run_shell_command',
        'AfterTool-write_file',
        'BeforeAgent',
        'BeforeTool-glob',
        'BeforeTool-grep_search',
        'BeforeTool-read_file',
        'BeforeTool-replace',
        'BeforeTool-run_shell_command',
        'BeforeTool-write_file',
        'SessionEnd',
        'SessionStart',
      ].map((n) => `${n}.json`),
    );
  });

  it('SessionStart is a session start, with the caller', () => {
    expect(parseGeminiHook(fixture('SessionStart'))).toEqual({ ok: true, call: { kind: 'sessionStart' }, caller: CALLER });
  });

  it("BeforeAgent is the user's prompt", () => {
    expect(parseGeminiHook(fixture('BeforeAgent'))).toEqual({ ok: true, call: { kind: 'prompt', text: 'Exercise the hooks, please.' }, caller: CALLER });
  });

  it.each([
    ['run_shell_command', { name: 'run_shell_command', kind: 'shell', command: 'echo ran > ran.txt', paths: [] }],
    ['write_file', { name: 'write_file', kind: 'write', paths: [NOTES] }],
    ['replace', { name: 'replace', kind: 'edit', paths: [NOTES] }],
    ['read_file', { name: 'read_file', kind: 'read', paths: [NOTES] }],
    ['glob', { name: 'glob', kind: 'search', paths: [], glob: '*.md' }],
    ['grep_search', { name: 'grep_search', kind: 'search', paths: [] }],
  ])('BeforeTool on %s is a tool call in recap terms', (tool, expected) => {
    const payload = fixture(`BeforeTool-${tool}`);
    const parsed = parseGeminiHook(payload);
    expect(parsed).toEqual({ ok: true, call: { kind: 'tool', call: { ...expected, input: payload.tool_input } }, caller: CALLER });
  });

  it.each(['run_shell_command', 'write_file', 'replace', 'read_file', 'glob', 'grep_search'])('AfterTool on %s is a tool used, with nothing to record', (tool) => {
    expect(parseGeminiHook(fixture(`AfterTool-${tool}`))).toEqual({ ok: true, call: { kind: 'toolUsed' }, caller: CALLER });
  });

  it('SessionEnd is the session ending, with its reason', () => {
    expect(parseGeminiHook(fixture('SessionEnd'))).toMatchObject({
      ok: true,
      call: { kind: 'sessionEnd', reason: 'exit' },
      caller: { session: '15370887-e588-4dc7-8262-e1533530e376' },
    });
  });

  it.each(['AfterAgent'])('%s is an event recap does not act on', (event) => {
    expect(parseGeminiHook(fixture(event))).toEqual({ ok: true, call: undefined, event });
  });

  it('a BeforeTool whose tool_name is not a string is a tool call of an unexpected shape', () => {
    const parsed = parseGeminiHook({ ...fixture('BeforeTool-read_file'), tool_name: 7 });
    expect(parsed).toMatchObject({ ok: false, event: 'BeforeTool', toolCall: true, session: CALLER.session, cwd: PROJECT });
  });

  it('a BeforeAgent with a relative cwd is not read, and is no tool call', () => {
    expect(parseGeminiHook({ ...fixture('BeforeAgent'), cwd: 'project' })).toMatchObject({ ok: false, event: 'BeforeAgent', toolCall: false });
  });
});

describe("the prompt's own words", () => {
  const MEMORY = "recap: the memory of job app-1: 1 summaries.\n## User Requests\nrecap submit &lt;&lt;'EOF'";

  it('leave out the SessionStart context that `-p` puts in front of the prompt', () => {
    const payload = { ...fixture('BeforeAgent'), prompt: `<hook_context>${MEMORY}</hook_context>\n\nFix the parser, please.` };
    expect(parseGeminiHook(payload)).toMatchObject({ call: { kind: 'prompt', text: 'Fix the parser, please.' } });
  });

  it("leave out the CLI's own session context, wherever it is", () => {
    expect(userPrompt('<session_context>\nToday is Monday.\n</session_context>\nAnd the tests.')).toBe('And the tests.');
    expect(userPrompt(`First part.\n<hook_context>${MEMORY}</hook_context>\n\nSecond part.`)).toBe('First part.\n\n\nSecond part.');
  });

  it('are empty when the prompt is only context (nothing is counted)', () => {
    expect(userPrompt(`<hook_context>${MEMORY}</hook_context>`)).toBe('');
  });

  it('keep a prompt that merely mentions the tags', () => {
    expect(userPrompt('What does <hook_context> mean in Gemini CLI?')).toBe('What does <hook_context> mean in Gemini CLI?');
  });
});

describe('every tool Gemini CLI offers, in recap terms', () => {
  it.each([
    ['run_shell_command', { command: 'npm test', dir_path: 'packages/core', is_background: false }, { kind: 'shell', command: 'npm test', dir: 'packages/core', paths: [] }],
    ['list_directory', { dir_path: '/home/ann/.local/share/recap' }, { kind: 'read', paths: ['/home/ann/.local/share/recap'] }],
    ['read_file', { file_path: 'src/a.ts', start_line: 1, end_line: 9 }, { kind: 'read', paths: ['src/a.ts'] }],
    ['read_many_files', { include: ['src/**/*.ts', 'README.md'], exclude: ['dist'] }, { kind: 'read', paths: ['src/**/*.ts', 'README.md'] }],
    ['glob', { pattern: '**/*.ts', dir_path: 'src' }, { kind: 'search', paths: ['src'], glob: '**/*.ts' }],
    // include_pattern is a glob under dir_path, judged as glob's pattern is.
    ['grep_search', { pattern: 'TODO', dir_path: 'src', include_pattern: '*.ts' }, { kind: 'search', paths: ['src'], glob: '*.ts' }],
    ['search_file_content', { pattern: 'TODO' }, { kind: 'search', paths: [] }],
    ['write_file', { file_path: 'b.ts', content: 'x' }, { kind: 'write', paths: ['b.ts'] }],
    ['replace', { file_path: 'b.ts', old_string: 'x', new_string: 'y', instruction: 'y' }, { kind: 'edit', paths: ['b.ts'] }],
    ['web_fetch', { prompt: 'summarize https://example.com' }, { kind: 'web', paths: [] }],
    ['google_web_search', { query: 'recap' }, { kind: 'web', paths: [] }],
    ['ask_user', { questions: [{ question: 'Which parser?', header: 'Parser', type: 'choice' }] }, { kind: 'question', paths: [], questions: ['Which parser?'] }],
    ['mcp_github_create_issue', { title: 't' }, { kind: 'mcp', paths: [] }],
    ['write_todos', { todos: [] }, { kind: 'other', paths: [] }],
    ['invoke_agent', { agent_name: 'codebase_investigator' }, { kind: 'other', paths: [] }],
  ])('%s', (tool, input, expected) => {
    expect(geminiToolCall(tool, input)).toEqual({ name: tool, input, ...expected });
  });
});

describe('ask_user answered (AfterTool)', () => {
  const asked = {
    questions: [
      { question: 'Which parser should the config loader use?', header: 'Parser', type: 'choice', options: [{ label: 'Hand-written' }] },
      { question: 'Which formats must it read?', header: 'Formats', type: 'text' },
    ],
  };
  const used = (response: unknown) => ({ ...fixture('AfterTool-read_file'), tool_name: 'ask_user', tool_input: asked, tool_response: response });

  it('is the questions with the answers the user gave', () => {
    const parsed = parseGeminiHook(used({ llmContent: JSON.stringify({ answers: { 0: 'Hand-written', 1: 'shell, json' } }), returnDisplay: '' }));
    expect(parsed).toMatchObject({
      call: { kind: 'toolUsed', qa: 'Q: Which parser should the config loader use?\nA: Hand-written\n\nQ: Which formats must it read?\nA: shell, json' },
    });
  });

  it('says when the user answered nothing or dismissed the questions', () => {
    const dismissed = parseGeminiHook(used({ llmContent: 'User dismissed ask_user dialog without answering.', returnDisplay: '' }));
    expect(dismissed).toMatchObject({ call: { kind: 'toolUsed', qa: expect.stringContaining('A: (no answer)') } });
  });
});

describe("Gemini CLI's answer formats", () => {
  it('a deny is a decision with its reason, exit 0', () => {
    expect(geminiFacts.deny('recap: summarize first')).toEqual({ stdout: '{"decision":"deny","reason":"recap: summarize first"}', exitCode: 0 });
  });

  it('context goes in hookSpecificOutput.additionalContext, for the event it answers', () => {
    expect(JSON.parse(geminiFacts.context('prompt', 'recap: job x needs a summary').stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: 'recap: job x needs a summary' },
    });
    expect(JSON.parse(geminiFacts.context('sessionStart', 'memory').stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'memory' } });
  });

  it('context with < or > says how Gemini CLI shows them', () => {
    const context = JSON.parse(geminiFacts.context('sessionStart', "run: recap submit <<'EOF'").stdout).hookSpecificOutput.additionalContext as string;
    expect(context.startsWith("run: recap submit <<'EOF'\n\n")).toBe(true);
    expect(context).toContain('&lt; and &gt;');
  });

  it('a notice is a systemMessage; nothing to say is nothing', () => {
    expect(geminiFacts.notice('recap: the daemon is not reachable')).toEqual({ stdout: '{"systemMessage":"recap: the daemon is not reachable"}', exitCode: 0 });
    expect(geminiFacts.notice('')).toEqual({ stdout: '', exitCode: 0 });
  });

  it('a notice rides along with a deny', () => {
    const answer = geminiFacts.withNotice!(geminiFacts.deny('no'), 'note');
    expect(JSON.parse(answer.stdout)).toEqual({ decision: 'deny', reason: 'no', systemMessage: 'note' });
  });
});

describe("Gemini CLI's transcript", () => {
  const answerLine = {
    id: 'm-1',
    timestamp: 't',
    type: 'gemini',
    content: 'Done.',
    model: 'gemini-2.5-flash',
    tokens: { input: 1200, output: 30, cached: 1000, thoughts: 12, tool: 5, total: 1247 },
  };

  it("gives a model answer's usage, keyed by the record's id, and the prompt size as the context", () => {
    expect(geminiUsageOf(answerLine)).toEqual({
      usage: { key: 'm-1', agent: 'main', model: 'gemini-2.5-flash', input: 205, output: 42, cacheCreation: 0, cacheRead: 1000 },
      context: 1200,
    });
  });

  it('gives the same key when the record is written again (tools added), so it counts once', () => {
    expect(geminiUsageOf({ ...answerLine, toolCalls: [{ id: 'c', name: 'glob' }] })?.usage.key).toBe('m-1');
  });

  it.each([
    ['an answer before its tokens are known', { ...answerLine, tokens: null }],
    ['a user record', { id: 'u-1', type: 'user', content: [{ text: 'hi' }] }],
    ['the header', { sessionId: 's', projectHash: 'h', startTime: 't', lastUpdated: 't', kind: 'main' }],
    ['a $set', { $set: { lastUpdated: 't' } }],
    ['a $rewindTo', { $rewindTo: 'm-1' }],
    ['not an object', 'gemini'],
  ])('says nothing of %s', (_what, line) => {
    expect(geminiUsageOf(line)).toBeUndefined();
  });
});

describe("the extension's hook command", () => {
  const NODE = "/opt/node's/bin/node";
  const BIN = '/opt/recap/bin/recap-hook.cjs';
  const command = hookCommand(BIN, NODE, '/home/ann/.gemini/extensions/recap');

  it('names the Node and the bundle it runs, quoted, so they can be found again', () => {
    expect(commandTarget(command)).toEqual({ node: NODE, hookBin: BIN });
    expect(runsRecapHook(command)).toBe(true);
  });

  it('recognises recap-hook for gemini written by hand, and nothing else', () => {
    expect(runsRecapHook('/usr/local/bin/recap-hook gemini')).toBe(true);
    expect(runsRecapHook('/usr/local/bin/recap-hook --agent gemini')).toBe(true);
    expect(runsRecapHook('/usr/local/bin/recap-hook claude')).toBe(false);
    expect(commandTarget('/usr/local/bin/recap-hook gemini')).toBeUndefined();
  });

  it("is one entry per event, named recap, with the matcher each needs and a timeout above recap-hook's 8 s", () => {
    const env = hookEnvironment({ HOME: '/home/ann' });
    const file = hooksFile(BIN, NODE, '/x', env);
    expect(Object.keys(file.hooks)).toEqual(['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'SessionEnd']);
    expect(file.hooks.BeforeTool).toEqual([{ matcher: '*', hooks: [{ type: 'command', name: 'recap', command: hookCommand(BIN, NODE, '/x'), timeout: TIMEOUT_MS, env }] }]);
    expect(file.hooks.AfterTool![0]!.matcher).toBe('^ask_user$');
    expect(file.hooks.SessionStart![0]!.matcher).toBeUndefined();
    expect(TIMEOUT_MS).toBeGreaterThan(8000 + 2000);
  });
});

describe("the environment the extension's hooks run with", () => {
  it("names recap's socket, data and config as the installing environment has them, and clears the code loaders, bash's tracing and the deadline", () => {
    const env = { HOME: '/home/ann', XDG_RUNTIME_DIR: '/run/user/1000', RECAP_DATA_DIR: '/srv/recap', XDG_CONFIG_HOME: '/home/ann/.cfg' };
    expect(hookEnvironment(env)).toEqual({
      RECAP_SOCKET: '/run/user/1000/recap/recapd.sock',
      RECAP_DATA_DIR: '/srv/recap',
      RECAP_CONFIG: '/home/ann/.cfg/recap/config.conf',
      RECAP_HOOK_DEADLINE_MS: '',
      NODE_OPTIONS: '',
      LD_PRELOAD: '',
      LD_AUDIT: '',
      LD_LIBRARY_PATH: '',
      BASH_ENV: '',
      DYLD_INSERT_LIBRARIES: '',
      OPENSSL_CONF: '',
      OPENSSL_MODULES: '',
      OPENSSL_ENGINES: '',
      GCONV_PATH: '',
      PERL5OPT: '',
      PERL5LIB: '',
      PERLLIB: '',
      PERL5DB: '',
      SHELLOPTS: '',
      BASHOPTS: '',
      BASH_XTRACEFD: '',
      PS4: '',
    });
  });
});

describe("Gemini CLI's files, protected from its own tools", () => {
  const HOME = '/home/ann';
  const PROJECT_DIR = `${HOME}/src/app`;
  const DATA = `${HOME}/.local/share/recap`;
  const STATE: ProtectedState = {
    paths: [DATA],
    readOnly: [...geminiFacts.settingsFiles({}, HOME), ...geminiFacts.projectSettingsFiles(PROJECT_DIR)],
    home: HOME,
    settingsNames: geminiFacts.settingsNames,
    shellVariables: geminiFacts.shellVariables,
  };
  const refusal = (tool: string, input: unknown) => protectionRefusal(geminiToolCall(tool, input), PROJECT_DIR, STATE, new Set([`${DATA}/bin/recap`]));

  it('names the settings (the system layer too), the extensions, the trusted folders and the .env files the CLI reads', () => {
    expect(geminiFacts.settingsFiles({}, HOME)).toEqual([
      `${HOME}/.gemini/settings.json`,
      `${HOME}/.gemini/extensions`,
      `${HOME}/.gemini/trustedFolders.json`,
      `${HOME}/.gemini/.env`,
      `${HOME}/.env`,
      '/etc/gemini-cli/settings.json',
      '/etc/gemini-cli/system-defaults.json',
    ]);
    expect(geminiFacts.settingsFiles({ GEMINI_CLI_HOME: '/srv/g' }, HOME)).toContain('/srv/g/.gemini/extensions');
  });

  it("are among the daemon's read-only paths and settings names, whichever agent calls", () => {
    expect(readOnlyPaths({ HOME })).toEqual(expect.arrayContaining([`${HOME}/.gemini/settings.json`, `${HOME}/.gemini/extensions`]));
    expect(projectReadOnlyPaths(PROJECT_DIR)).toEqual(expect.arrayContaining([`${PROJECT_DIR}/.gemini/settings.json`, `${PROJECT_DIR}/.gemini/.env`]));
    const state = protectionFor({ paths: [DATA], home: HOME }, PROJECT_DIR);
    expect(state.settingsNames).toEqual(expect.arrayContaining([...geminiFacts.settingsNames]));
    expect(state.shellVariables).toContain('GEMINI_CLI');
  });

  it.each([
    ['write_file', { file_path: `${HOME}/.gemini/extensions/recap/hooks/hooks.json`, content: '{}' }, `(${HOME}/.gemini/extensions)`],
    ['replace', { file_path: '~/.gemini/settings.json', old_string: 'a', new_string: 'b' }, `(${HOME}/.gemini/settings.json)`],
    ['write_file', { file_path: '.gemini/settings.json', content: '{"hooksConfig":{"enabled":false}}' }, `(${PROJECT_DIR}/.gemini/settings.json)`],
    ['write_file', { file_path: '.gemini/.env', content: 'BASH_ENV=/tmp/x' }, `(${PROJECT_DIR}/.gemini/.env)`],
    ['write_file', { file_path: '/srv/other/.gemini/settings.json', content: '{}' }, "would change Gemini CLI's settings"],
    ['write_file', { file_path: `${HOME}/.gemini/extensions/other/gemini-extension.json`, content: '{}' }, `(${HOME}/.gemini/extensions)`],
    ['run_shell_command', { command: 'rm -rf ~/.gemini/extensions/recap' }, '(~/.gemini/extensions)'],
    ['run_shell_command', { command: 'gemini extensions disable recap' }, "Gemini CLI's extensions, hooks or trusted folders"],
    ['run_shell_command', { command: 'echo \'{"p":"TRUST_FOLDER"}\' > ~/.gemini/trustedFolders.json' }, '(~/.gemini/trustedFolders.json)'],
    ['run_shell_command', { command: 'export GEMINI_CLI=0' }, "the variables that mark the agent's shell"],
    ['run_shell_command', { command: 'ls', dir_path: `${DATA}/log` }, `run_shell_command in ${DATA}/log runs inside recap's own files`],
    ['list_directory', { dir_path: DATA }, "touches recap's own files"],
  ])('refuses %s %j', (tool, input, why) => {
    expect(refusal(tool, input)).toContain(why);
  });

  it.each([
    ['read_file', { file_path: `${HOME}/.gemini/extensions/recap/hooks/hooks.json` }],
    ['run_shell_command', { command: 'cat ~/.gemini/settings.json' }],
    ['write_file', { file_path: 'src/a.ts', content: 'x' }],
    ['run_shell_command', { command: 'npm test', dir_path: 'packages/core' }],
  ])('lets %s %j through', (tool, input) => {
    expect(refusal(tool, input)).toBeUndefined();
  });
});
