// The harness recap's adapters for Codex, Gemini CLI and Qwen Code are tested with: each real
// CLI (test/agents) runs one headless turn offline against its scripted model, with a
// recording hook installed the way each agent needs it to run in a default setup. For each:
// the session, prompt and tool hooks fire for shell and file calls, a deny printed by the
// hook reaches the model as the tool result and the call does not run, an allowed call runs,
// and the payloads match the fixtures in test/fixtures/agents (RECAP_UPDATE_AGENT_FIXTURES=1
// rewrites them from the real payloads).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSandbox, removeAgentSandbox, type AgentDirs } from '../helpers/agentSandbox.js';
import { assertCodexRuns, codexEnv, installCodexHooks, runCodex, type CodexResult } from '../helpers/codexCli.js';
import { codexHookHash, codexHookIdentity } from '../helpers/codexTrust.js';
import { assertGeminiRuns, geminiEnv, installGeminiExtension, runGemini, type GeminiResult } from '../helpers/geminiCli.js';
import { fixturesOf, hookRecords, recorderCommand, type HookRecord } from '../helpers/hookRecorder.js';
import { MockGemini } from '../helpers/mockGemini.js';
import { MockOpenAIChat } from '../helpers/mockOpenAIChat.js';
import { answer, applyPatch, execCommand, MockOpenAIResponses } from '../helpers/mockOpenAIResponses.js';
import { assertQwenRuns, installQwenHooks, qwenEnv, runQwen, type QwenResult } from '../helpers/qwenCli.js';
import { callTool } from '../helpers/scriptedModel.js';

const TEST_MS = 120_000;
/** A tool call whose payload holds this is denied by the recording hook. */
const MARKER = 'DENY-ME';
const REASON = 'recap-harness: denied by the test hook';
const PROMPT = 'Exercise the hooks, please.';

const payloadsOf = (records: HookRecord[], event: string) => records.filter((r) => r.event === event).map((r) => r.payload);
const toolCalls = (records: HookRecord[], event: string) => payloadsOf(records, event).map((p) => [p.tool_name, p.tool_input]);

/** Each fixture exists and holds the keys the agent sends now. */
function expectFixtures(agent: string, records: HookRecord[], dirs: AgentDirs, expected: string[], name?: (r: HookRecord) => string | undefined): void {
  const fixtures = fixturesOf(agent, records, dirs, name);
  expect(fixtures.map((f) => f.name).sort()).toEqual([...expected].sort());
  for (const fixture of fixtures) {
    expect(fixture.saved, `${fixture.file} is missing: run this test with RECAP_UPDATE_AGENT_FIXTURES=1`).toBeDefined();
    expect(fixture.live, `${fixture.file} no longer matches the agent's payload: rerun with RECAP_UPDATE_AGENT_FIXTURES=1`).toEqual(fixture.saved);
  }
}

describe('the test-only agent CLIs (the tests below need them and fail, never skip, without them)', () => {
  it('Codex runs', () => expect(assertCodexRuns()).toBe('codex-cli 0.169.0'));
  it('Gemini CLI runs', () => expect(assertGeminiRuns()).toBe('0.61.0'));
  it('Qwen Code runs', () => expect(assertQwenRuns()).toBe('0.24.4'));
});

describe('Codex 0.169.0 in its workspace-write sandbox, with trusted user hooks', () => {
  const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'];
  const ADD = '*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch\n';
  const UPDATE = '*** Begin Patch\n*** Update File: notes.md\n@@\n-hello\n+bye\n*** End Patch\n';
  const DENIED_PATCH = `*** Begin Patch\n*** Add File: denied.md\n+${MARKER}\n*** End Patch\n`;
  let dirs: AgentDirs;
  let mock: MockOpenAIResponses;
  let socketServer: Server;
  let socket: string;
  let run: CodexResult;
  let records: HookRecord[];

  /** Node connecting to the Unix socket: prints `connected` or the error code. */
  const connectCommand = () =>
    `'${process.execPath}' -e 'require("net").connect(process.argv[1]).on("connect",()=>{console.log("connected");process.exit(0)}).on("error",e=>{console.log(e.code);process.exit(3)})' '${socket}'`;

  const gate = { event: 'PreToolUse', marker: MARKER, deny: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: REASON } } };
  const hooks = (d: AgentDirs) =>
    Object.fromEntries(
      EVENTS.map((event) => [
        event,
        [
          {
            ...(event === 'UserPromptSubmit' || event === 'Stop' ? {} : { matcher: '*' }),
            hooks: [{ type: 'command' as const, command: recorderCommand(d, event, gate), timeout: 10 }],
          },
        ],
      ]),
    );

  beforeAll(async () => {
    assertCodexRuns();
    dirs = agentSandbox('codex');
    socket = join(dirs.root, 'probe.sock');
    socketServer = createServer((c) => c.end());
    await new Promise<void>((resolve) => socketServer.listen(socket, resolve));
    mock = await MockOpenAIResponses.start();
  });

  afterAll(async () => {
    await mock?.close();
    await new Promise((resolve) => socketServer?.close(resolve));
    removeAgentSandbox(dirs);
  });

  it(
    'runs the hooks; allowed calls run, a denied shell call and a denied patch reach the model as the hook said',
    async () => {
      const env = codexEnv(dirs, mock);
      installCodexHooks(dirs, hooks(dirs));
      mock.script(
        execCommand('echo ran > ran.txt'),
        applyPatch(ADD),
        applyPatch(UPDATE),
        execCommand(`echo ${MARKER} > denied.txt`),
        applyPatch(DENIED_PATCH),
        execCommand(connectCommand()),
        // The hook is not told where a command runs: exec_command's workdir is dropped.
        callTool('exec_command', { cmd: 'pwd', workdir: dirs.tmp }),
        answer('Done.'),
      );
      run = await runCodex(dirs.project, env, PROMPT, mock);
      records = hookRecords(dirs);
      const ctx = `${mock.describe()}\n--- hooks\n${records.map((r) => `${r.event} ${JSON.stringify(r.payload.tool_input ?? '')}`).join('\n')}`;
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(8);
      expect(run.events.at(-2), ctx).toMatchObject({ type: 'item.completed', item: { type: 'agent_message', text: 'Done.' } });

      expect(payloadsOf(records, 'SessionStart'), ctx).toEqual([expect.objectContaining({ source: 'startup', cwd: dirs.project })]);
      expect(payloadsOf(records, 'UserPromptSubmit')).toEqual([expect.objectContaining({ prompt: PROMPT })]);
      // The model calls exec_command {cmd}; hooks see Bash {command}. Patches stay apply_patch.
      expect(toolCalls(records, 'PreToolUse')).toEqual([
        ['Bash', { command: 'echo ran > ran.txt' }],
        ['apply_patch', { command: ADD }],
        ['apply_patch', { command: UPDATE }],
        ['Bash', { command: `echo ${MARKER} > denied.txt` }],
        ['apply_patch', { command: DENIED_PATCH }],
        ['Bash', { command: connectCommand() }],
        ['Bash', { command: 'pwd' }],
      ]);
      expect(mock.toolResult(6)?.text).toContain(`Output:\n${dirs.tmp}\n`);
      // Denied calls fire no PostToolUse.
      expect(toolCalls(records, 'PostToolUse').map(([tool]) => tool)).toEqual(['Bash', 'apply_patch', 'apply_patch', 'Bash', 'Bash']);
      expect(payloadsOf(records, 'Stop')).toEqual([expect.objectContaining({ last_assistant_message: 'Done.' })]);
      // `codex exec` ends without a SessionEnd.
      expect(payloadsOf(records, 'SessionEnd')).toEqual([]);

      expect(readFileSync(join(dirs.project, 'ran.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(join(dirs.project, 'notes.md'), 'utf8')).toBe('bye\n');
      expect(mock.toolResult(3)?.text).toBe(`Command blocked by PreToolUse hook: ${REASON}. Command: echo ${MARKER} > denied.txt`);
      expect(mock.toolResult(4)?.text).toBe(`Command blocked by PreToolUse hook: ${REASON}. Command: ${DENIED_PATCH}`);
      expect(existsSync(join(dirs.project, 'denied.txt'))).toBe(false);
      expect(existsSync(join(dirs.project, 'denied.md'))).toBe(false);
    },
    TEST_MS,
  );

  it('sandboxes the shell (no Unix socket: EPERM) but not the hooks', () => {
    expect(run, 'the run above must have passed').toBeDefined();
    // Outside the sandbox the same command connects: the socket is fine.
    const outside = spawnSync('bash', ['-c', connectCommand()], { encoding: 'utf8' });
    expect(outside.stdout.trim()).toBe('connected');
    expect(mock.toolResult(5)?.text).toMatch(/Process exited with code 3\n[\s\S]*Output:\nEPERM\n$/);
    // Hooks run in the test's own mount namespace and with no seccomp filter.
    expect(new Set(records.map((r) => `${r.seccomp} ${r.mntNs}`))).toEqual(new Set([`0 ${readlinkSync('/proc/self/ns/mnt')}`]));
  });

  it('hashes a handler as Codex does (the worked example; hashes from `codex app-server` hooks/list currentHash)', () => {
    const handler = { type: 'command' as const, command: '/usr/local/bin/recap-hook --agent codex', timeout: 10 };
    expect(codexHookIdentity('PreToolUse', { matcher: '*', hooks: [handler] }, handler)).toBe(
      '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"/usr/local/bin/recap-hook --agent codex","timeout":10,"type":"command"}],"matcher":"*"}',
    );
    expect(codexHookHash('PreToolUse', { matcher: '*', hooks: [handler] }, handler)).toBe('sha256:79988e03dc2260c6f79b5b45aa1d42c3cfe309ee55ddaf36a352a9a7018c053e');
    expect(codexHookHash('UserPromptSubmit', { hooks: [handler] }, handler)).toBe('sha256:c7d129b7fc39f6208979d125f0482e9a4e3dc75155f7442efc54e51dca35c1f1');
  });

  it('saves the payloads as fixtures', () => {
    expect(records, 'the run above must have passed').toBeDefined();
    const name = (r: HookRecord) => {
      const patch = String((r.payload.tool_input as { command?: unknown } | undefined)?.command ?? '');
      if (r.payload.tool_name === 'apply_patch') return `${r.event}-apply_patch-${patch.includes('*** Update File') ? 'update' : 'add'}`;
      return `${r.event}${typeof r.payload.tool_name === 'string' ? `-${r.payload.tool_name}` : ''}`;
    };
    expectFixtures(
      'codex',
      records,
      dirs,
      [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse-Bash',
        'PostToolUse-Bash',
        'PreToolUse-apply_patch-add',
        'PostToolUse-apply_patch-add',
        'PreToolUse-apply_patch-update',
        'PostToolUse-apply_patch-update',
        'Stop',
      ],
      name,
    );
  });

  it(
    'skips, without a word, hooks whose trust entry is missing',
    async () => {
      const other = agentSandbox('codex-untrusted');
      const untrustedMock = await MockOpenAIResponses.start([execCommand('echo ran > ran.txt'), answer('Done.')]);
      try {
        const env = codexEnv(other, untrustedMock);
        installCodexHooks(other, hooks(other), false);
        await runCodex(other.project, env, PROMPT, untrustedMock);
        expect(readFileSync(join(other.project, 'ran.txt'), 'utf8')).toBe('ran\n');
        expect(hookRecords(other)).toEqual([]);
      } finally {
        await untrustedMock.close();
        removeAgentSandbox(other);
      }
    },
    TEST_MS,
  );
});

describe('Gemini CLI 0.61.0, with hooks in a hand-written extension', () => {
  const EVENTS = ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'];
  const gate = { event: 'BeforeTool', marker: MARKER, deny: { decision: 'deny', reason: REASON } };
  let dirs: AgentDirs;
  let mock: MockGemini;
  let run: GeminiResult;
  let records: HookRecord[];

  beforeAll(async () => {
    assertGeminiRuns();
    dirs = agentSandbox('gemini');
    mock = await MockGemini.start();
  });

  afterAll(async () => {
    await mock?.close();
    removeAgentSandbox(dirs);
  });

  it(
    'runs the hooks; allowed calls run, a denied shell call reaches the model as "Tool execution blocked"',
    async () => {
      const env = geminiEnv(dirs, mock);
      const hooks = Object.fromEntries(
        EVENTS.map((event) => [
          event,
          [
            {
              ...(event.includes('Tool') ? { matcher: '*' } : {}),
              hooks: [{ type: 'command' as const, name: 'recorder', command: recorderCommand(dirs, event, gate), timeout: 10_000 }],
            },
          ],
        ]),
      );
      installGeminiExtension(dirs, hooks);
      const notes = join(dirs.project, 'notes.md');
      const calls: [string, Record<string, unknown>][] = [
        ['run_shell_command', { command: 'echo ran > ran.txt' }],
        ['write_file', { file_path: notes, content: 'hello\n' }],
        ['replace', { file_path: notes, instruction: 'Say bye.', old_string: 'hello', new_string: 'bye' }],
        ['read_file', { file_path: notes }],
        ['glob', { pattern: '*.md' }],
        ['grep_search', { pattern: 'bye' }],
        ['run_shell_command', { command: `echo ${MARKER} > denied.txt` }],
      ];
      mock.script(...calls.map(([tool, input]) => callTool(tool, input)), answer('Done.'));
      run = await runGemini(dirs.project, env, PROMPT, mock);
      records = hookRecords(dirs);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(calls.length + 1);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', status: 'success' });

      expect(payloadsOf(records, 'SessionStart')).toEqual([expect.objectContaining({ source: 'startup', cwd: dirs.project })]);
      expect(payloadsOf(records, 'BeforeAgent')).toEqual([expect.objectContaining({ prompt: PROMPT })]);
      expect(toolCalls(records, 'BeforeTool')).toEqual(calls);
      expect(toolCalls(records, 'AfterTool')).toEqual(calls.slice(0, -1));
      expect(payloadsOf(records, 'SessionEnd')).toEqual([expect.objectContaining({ reason: 'exit' })]);

      expect(readFileSync(join(dirs.project, 'ran.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(notes, 'utf8')).toBe('bye\n');
      expect(mock.toolResult(6)).toMatchObject({ text: `Tool execution blocked: ${REASON}`, isError: true });
      expect(existsSync(join(dirs.project, 'denied.txt'))).toBe(false);
    },
    TEST_MS,
  );

  it('saves the payloads as fixtures', () => {
    expect(records, 'the run above must have passed').toBeDefined();
    const tools = ['run_shell_command', 'write_file', 'replace', 'read_file', 'glob', 'grep_search'];
    expectFixtures('gemini', records, dirs, ['SessionStart', 'BeforeAgent', ...tools.flatMap((tool) => [`BeforeTool-${tool}`, `AfterTool-${tool}`]), 'AfterAgent', 'SessionEnd']);
  });
});

describe('Qwen Code 0.24.4 on Node 20, with hooks in the user settings', () => {
  const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'];
  const gate = { event: 'PreToolUse', marker: MARKER, deny: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: REASON } } };
  let dirs: AgentDirs;
  let mock: MockOpenAIChat;
  let run: QwenResult;
  let records: HookRecord[];

  beforeAll(async () => {
    assertQwenRuns();
    dirs = agentSandbox('qwen');
    mock = await MockOpenAIChat.start();
  });

  afterAll(async () => {
    await mock?.close();
    removeAgentSandbox(dirs);
  });

  it(
    'runs the hooks; allowed calls run, a denied shell call reaches the model as the bare reason',
    async () => {
      const env = qwenEnv(dirs, mock);
      const hooks = Object.fromEntries(
        EVENTS.map((event) => [
          event,
          [
            {
              ...(event.includes('Tool') ? { matcher: '*' } : {}),
              hooks: [{ type: 'command' as const, name: 'recorder', command: recorderCommand(dirs, event, gate), timeout: 10 }],
            },
          ],
        ]),
      );
      installQwenHooks(dirs, hooks);
      const notes = join(dirs.project, 'notes.md');
      const calls: [string, Record<string, unknown>][] = [
        ['run_shell_command', { command: 'echo ran > ran.txt' }],
        ['write_file', { file_path: notes, content: 'hello\n' }],
        ['edit', { file_path: notes, old_string: 'hello', new_string: 'bye' }],
        ['read_file', { file_path: notes }],
        ['glob', { pattern: '*.md' }],
        ['grep_search', { pattern: 'bye' }],
        ['run_shell_command', { command: `echo ${MARKER} > denied.txt` }],
      ];
      mock.script(...calls.map(([tool, input]) => callTool(tool, input)), answer('Done.'));
      run = await runQwen(dirs.project, env, PROMPT, mock);
      records = hookRecords(dirs);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(calls.length + 1);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });

      expect(payloadsOf(records, 'SessionStart')).toEqual([expect.objectContaining({ source: 'startup', cwd: dirs.project })]);
      // UserPromptSubmit fires before every model request; only the first is the user's.
      const prompts = payloadsOf(records, 'UserPromptSubmit');
      expect(prompts[0]).toMatchObject({ prompt: PROMPT, submitted_prompt: PROMPT });
      expect(prompts.slice(1).map((p) => [p.prompt, p.submitted_prompt])).toEqual(calls.map(() => ['', undefined]));
      expect(toolCalls(records, 'PreToolUse')).toEqual(calls);
      expect(toolCalls(records, 'PostToolUse')).toEqual(calls.slice(0, -1));
      expect(payloadsOf(records, 'Stop')).toEqual([expect.objectContaining({ last_assistant_message: 'Done.' })]);
      // A `-p` run ends without a SessionEnd.
      expect(payloadsOf(records, 'SessionEnd')).toEqual([]);

      expect(readFileSync(join(dirs.project, 'ran.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(notes, 'utf8')).toBe('bye\n');
      expect(mock.toolResult(6)?.text).toBe(REASON);
      expect(existsSync(join(dirs.project, 'denied.txt'))).toBe(false);
    },
    TEST_MS,
  );

  it('saves the payloads as fixtures', () => {
    expect(records, 'the run above must have passed').toBeDefined();
    const tools = ['run_shell_command', 'write_file', 'edit', 'read_file', 'glob', 'grep_search'];
    const name = (r: HookRecord) =>
      r.event === 'UserPromptSubmit' && r.payload.submitted_prompt === undefined
        ? 'UserPromptSubmit-followup'
        : `${r.event}${typeof r.payload.tool_name === 'string' ? `-${r.payload.tool_name}` : ''}`;
    expectFixtures(
      'qwen',
      records,
      dirs,
      ['SessionStart', 'UserPromptSubmit', 'UserPromptSubmit-followup', ...tools.flatMap((tool) => [`PreToolUse-${tool}`, `PostToolUse-${tool}`]), 'Stop'],
      name,
    );
  });
});
