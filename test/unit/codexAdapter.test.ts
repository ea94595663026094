// Codex CLI's payloads in recap's terms: every real payload in test/fixtures/agents/codex
// reads into the right call, its tools into the right kinds and paths, and recap's answers
// come out in the only shapes Codex accepts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexFacts, codexToolCall } from '../../src/agents/codex/facts.js';
import { parseCodexHook } from '../../src/agents/codex/hook.js';
import { codexUsageOf } from '../../src/agents/codex/transcript.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const DIR = join(FIXTURES, 'codex');
const fixture = (name: string) => JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
const CALLER = {
  cwd: '/tmp/FIXTURE/project',
  session: '01a2090c-b688-7b51-8ce5-593c45da06a4',
  agent: 'main',
  transcript: '/tmp/FIXTURE/home/.codex/sessions/2026/11/23/rollout-2026-11-23T15-35-57-01a2090c-b688-7b51-8ce5-593c45da06a4.jsonl',
};

describe('the real Codex payloads (test/fixtures/agents/codex)', () => {
  const expected: Record<string, unknown> = {
    SessionStart: { kind: 'sessionStart' },
    UserPromptSubmit: { kind: 'prompt', text: 'Exercise the hooks, please.' },
    'PreToolUse-Bash': { kind: 'tool', call: { name: 'Bash', kind: 'shell', command: 'echo ran > ran.txt', paths: [] } },
    'PreToolUse-apply_patch-add': { kind: 'tool', call: { name: 'apply_patch', kind: 'patch', paths: ['notes.md'] } },
    'PreToolUse-apply_patch-update': { kind: 'tool', call: { name: 'apply_patch', kind: 'patch', paths: ['notes.md'] } },
  };
  // Events recap does not act on: PostToolUse (Codex has no question tool to record) and Stop.
  const ignored = ['PostToolUse-Bash', 'PostToolUse-apply_patch-add', 'PostToolUse-apply_patch-update', 'Stop'];

  it('are all covered here', () => {
    const names = readdirSync(DIR).map((f) => f.replace(/\.json$/, ''));
    expect(names.sort()).toEqual([...Object.keys(expected), ...ignored].sort());
  });

  it.each(Object.entries(expected))('%s reads into its call, with its caller', (name, call) => {
    const parsed = parseCodexHook(fixture(name));
    expect(parsed).toMatchObject({ ok: true, call, caller: CALLER });
    // The shell call has no folder of its own: Codex does not tell the hook exec_command's workdir.
    if (parsed.ok && parsed.call?.kind === 'tool') expect(parsed.call.call.dir).toBeUndefined();
  });

  it.each(ignored)('%s is an event recap does not act on', (name) => {
    expect(parseCodexHook(fixture(name))).toEqual({ ok: true, call: undefined, event: fixture(name).hook_event_name });
  });

  it('reads a subagent as its own agent, and a session without a transcript (--ephemeral)', () => {
    const payload = { ...fixture('PreToolUse-Bash'), agent_id: '019a-sub', agent_type: 'default', transcript_path: null };
    const parsed = parseCodexHook(payload);
    expect(parsed).toMatchObject({ ok: true, caller: { agent: '019a-sub', session: CALLER.session } });
    expect(parsed.ok && parsed.call !== undefined && 'transcript' in parsed.caller).toBe(false);
  });

  it('judges a tool call of an unexpected shape as one, with what can be told of its caller', () => {
    const { cwd: _dropped, ...noCwd } = fixture('PreToolUse-Bash');
    expect(parseCodexHook(noCwd)).toMatchObject({ ok: false, event: 'PreToolUse', toolCall: true, session: CALLER.session });
    const { prompt: _none, ...noPrompt } = fixture('UserPromptSubmit');
    expect(parseCodexHook(noPrompt)).toMatchObject({ ok: false, event: 'UserPromptSubmit', toolCall: false, cwd: CALLER.cwd });
  });
});

describe("Codex's tools in recap's terms", () => {
  it('reads every file a patch adds, updates, deletes or moves to, relative to the session folder', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+hello',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-a',
      '+b',
      '*** Delete File: /home/ann/.codex/hooks.json',
      '*** End Patch',
    ].join('\n');
    expect(codexToolCall('apply_patch', { command: patch })).toMatchObject({ kind: 'patch', paths: ['docs/new.md', 'src/a.ts', 'src/b.ts', '/home/ann/.codex/hooks.json'] });
    // A patch under another name is still read for its files.
    expect(codexToolCall('apply_patch', { input: patch }).paths).toHaveLength(4);
    expect(codexToolCall('apply_patch', patch).paths).toHaveLength(4);
  });

  it.each([
    ['view_image', { path: '/tmp/shot.png' }, { kind: 'read', paths: ['/tmp/shot.png'] }],
    ['request_user_input', { questions: [{ id: 'q', header: 'Parser', question: 'Which parser?', options: [] }] }, { kind: 'question', questions: ['Which parser?'] }],
    ['web_search', { query: 'x' }, { kind: 'web', paths: [] }],
    ['mcp__github__create_issue', { owner: 'o' }, { kind: 'mcp', paths: [] }],
    ['spawn_agent', { message: 'explore' }, { kind: 'other', paths: [] }],
    ['multi_agent_v1wait_agent', {}, { kind: 'other', paths: [] }],
    // The model's own field name, should a hook ever be handed it.
    ['Bash', { cmd: 'ls' }, { kind: 'shell', command: 'ls', paths: [] }],
    // No command line to read: judged as an unknown tool, by every path in it.
    ['Bash', { argv: ['rm', '/home/ann/.codex/hooks.json'] }, { kind: 'other', paths: [] }],
  ])('%s %j is %j', (name, input, call) => {
    expect(codexToolCall(name, input)).toMatchObject({ name, ...call, input });
  });
});

describe("recap's answers in Codex's format", () => {
  it('denies with hookSpecificOutput, never with a blank reason (Codex would run the call)', () => {
    expect(JSON.parse(codexFacts.deny('no').stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } });
    expect(JSON.parse(codexFacts.deny('  \n').stdout).hookSpecificOutput.permissionDecisionReason).toBe('recap: denied');
    // Codex adds a period after the reason: one at its end would make two.
    expect(JSON.parse(codexFacts.deny('Go on with the work.\n').stdout).hookSpecificOutput.permissionDecisionReason).toBe('Go on with the work');
    expect(JSON.parse(codexFacts.deny('wait...').stdout).hookSpecificOutput.permissionDecisionReason).toBe('wait...');
    expect(codexFacts.deny('no').exitCode).toBe(0);
  });

  it('tells the user through systemMessage alone (a field Codex does not know fails the hook), and says nothing for nothing', () => {
    expect(codexFacts.notice('')).toEqual({ stdout: '', exitCode: 0 });
    expect(JSON.parse(codexFacts.notice('daemon down').stdout)).toEqual({ systemMessage: 'daemon down' });
  });

  it('adds a note beside a deny or a context, and leaves plain text and an answer with a note alone', () => {
    const denied = codexFacts.withNotice!(codexFacts.deny('no'), 'note');
    expect(JSON.parse(denied.stdout)).toEqual({ ...JSON.parse(codexFacts.deny('no').stdout), systemMessage: 'note' });
    const context = codexFacts.withNotice!(codexFacts.context('prompt', 'ctx'), 'note');
    expect(JSON.parse(context.stdout)).toMatchObject({ systemMessage: 'note', hookSpecificOutput: { additionalContext: 'ctx' } });
    expect(codexFacts.withNotice!({ stdout: 'plain', exitCode: 0 }, 'note').stdout).toBe('plain');
    expect(codexFacts.withNotice!(codexFacts.notice('first'), 'second')).toEqual(codexFacts.notice('first'));
  });

  it('hands over context for the prompt and the session start', () => {
    expect(JSON.parse(codexFacts.context('prompt', 'a').stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'a' } });
    expect(JSON.parse(codexFacts.context('sessionStart', 'b').stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'b' } });
  });

  it('names the shell tool as the model calls it', () => {
    expect(codexFacts.shellTool).toBe('exec_command');
  });
});

describe("the files that wire recap into Codex, which Codex's own tools may not change", () => {
  it('are hooks.json, config.toml, .env (loaded into every hook) and the requirements in CODEX_HOME, in ~/.codex and in /etc/codex, and in a project', () => {
    const own = (dir: string) => ['hooks.json', 'config.toml', '.env', 'requirements.toml', 'managed_config.toml'].map((name) => `${dir}/${name}`);
    const system = ['hooks.json', 'config.toml', 'requirements.toml', 'managed_config.toml'].map((name) => `/etc/codex/${name}`);
    expect(codexFacts.settingsFiles({ CODEX_HOME: '/srv/codex' }, '/home/ann')).toEqual([...own('/srv/codex'), ...own('/home/ann/.codex'), ...system]);
    expect(codexFacts.settingsFiles({}, '/home/ann')).toEqual([...own('/home/ann/.codex'), ...system]);
    expect(codexFacts.projectSettingsFiles('/src/app')).toEqual(['/src/app/.codex/hooks.json', '/src/app/.codex/config.toml']);
  });

  const HOME = '/home/ann';
  const STATE: ProtectedState = {
    paths: [`${HOME}/.local/share/recap`],
    readOnly: codexFacts.settingsFiles({}, HOME),
    home: HOME,
    settingsNames: codexFacts.settingsNames,
    shellVariables: codexFacts.shellVariables,
  };
  const refusal = (name: string, input: unknown, cwd = `${HOME}/src/app`) => protectionRefusal(codexToolCall(name, input), cwd, STATE, new Set());
  const patch = (line: string) => ({ command: `*** Begin Patch\n${line}\n+x\n*** End Patch\n` });

  it.each([
    ['a patch adding to the data folder', 'apply_patch', patch(`*** Add File: ${HOME}/.local/share/recap/x`), "recap's own files"],
    ['a patch updating config.toml by a relative path', 'apply_patch', patch('*** Update File: ../../.codex/config.toml'), 'wires recap in'],
    ['a patch deleting hooks.json', 'apply_patch', patch(`*** Delete File: ${HOME}/.codex/hooks.json`), 'wires recap in'],
    ["a patch writing another checkout's .codex/hooks.json", 'apply_patch', patch('*** Add File: /srv/other/.codex/hooks.json'), "Codex's hooks, config and environment"],
    // Codex trims every header line: indented, or ending in a tab or a no-break space, it still writes the file.
    ['a patch with an indented header', 'apply_patch', patch(`   *** Add File: ${HOME}/.local/share/recap/x`), "recap's own files"],
    ['a patch whose header ends in a tab', 'apply_patch', patch('*** Update File: ../../.codex/config.toml\t'), 'wires recap in'],
    ['a patch whose header ends in a no-break space', 'apply_patch', patch('*** Delete File: ../../.codex/hooks.json\u00a0'), 'wires recap in'],
    ['a patch on ~/.codex/.env', 'apply_patch', patch('*** Add File: ../../.codex/.env'), 'wires recap in'],
    ['a shell appending to ~/.codex/.env', 'Bash', { command: "echo 'NODE_OPTIONS=--require /tmp/x.js' >> ~/.codex/.env" }, 'wires recap in'],
    // Codex applies a patch handed to apply_patch in exec_command itself, outside the shell.
    [
      'apply_patch in exec_command',
      'Bash',
      { command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../../.local/share/recap/x\n+x\n*** End Patch\nEOF\n" },
      "recap's own files",
    ],
    [
      'apply_patch in exec_command after cd',
      'Bash',
      { command: "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../../../.local/share/recap/x\n+x\n*** End Patch\nEOF\n" },
      "recap's own files",
    ],
    ['a shell appending to config.toml', 'Bash', { command: 'echo "[features]" >> ~/.codex/config.toml' }, 'wires recap in'],
    ['a shell unsetting the shell marker', 'Bash', { command: 'unset CODEX_THREAD_ID; ls' }, "the agent's shell"],
    ['a shell call with no command line to read, naming hooks.json', 'Bash', { argv: ['rm', `${HOME}/.codex/hooks.json`] }, 'wires recap in'],
  ])('refuses %s', (_what, name, input, words) => {
    expect(refusal(name, input)).toContain(words);
  });

  it('lets the agent read them, and patch its own files', () => {
    expect(refusal('Bash', { command: 'cat ~/.codex/config.toml' })).toBeUndefined();
    expect(refusal('apply_patch', patch('*** Add File: notes.md'))).toBeUndefined();
    expect(refusal('apply_patch', patch('  *** Update File: src/a.ts\t'))).toBeUndefined();
    expect(refusal('Bash', { command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\nEOF\n" })).toBeUndefined();
  });

  it('reads the files of a patch in exec_command from the session folder and from each folder it cds into', () => {
    const call = codexToolCall('Bash', {
      command: "cd pkg && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.md\n+x\n*** Update File: /abs/b.md\n@@\n-a\n+b\n*** End Patch\nEOF",
    });
    expect(call).toMatchObject({ kind: 'shell', paths: ['a.md', 'pkg/a.md', '/abs/b.md'] });
    expect(codexToolCall('Bash', { command: 'ls' }).paths).toEqual([]);
  });
});

describe("Codex's rollout file", () => {
  const record = (usage: Record<string, number>, thread = 'sess-1') => ({
    timestamp: '2026-11-23T15:43:50.121Z',
    type: 'token_usage_record',
    payload: { thread_id: thread, turn_id: 't', session_id: 'sess-1', response_id: 'resp_9', usage },
  });

  it('gives each response its usage, the cached input apart, and the main context size', () => {
    expect(codexUsageOf(record({ input_tokens: 1000, cached_input_tokens: 600, output_tokens: 20, cache_write_input_tokens: 100 }))).toEqual({
      usage: { key: 'sess-1:resp_9', agent: 'main', input: 300, output: 20, cacheCreation: 100, cacheRead: 600 },
      context: 1000,
    });
  });

  it("counts a subagent's thread as its own, without a context size", () => {
    expect(codexUsageOf(record({ input_tokens: 10, output_tokens: 1 }, 'sub-7'))).toEqual({
      usage: { key: 'sub-7:resp_9', agent: 'sub-7', input: 10, output: 1, cacheCreation: 0, cacheRead: 0 },
    });
  });

  it('says nothing of other lines', () => {
    for (const line of [{ type: 'event_msg', payload: { type: 'token_count' } }, { type: 'token_usage_record', payload: {} }, null, 'x']) {
      expect(codexUsageOf(line)).toBeUndefined();
    }
  });
});
