// A session's end through the real recap-hook and the real daemon: each agent's SessionEnd
// records the session's figures, the transcript read one last time first; `recap report
// --session` shows its tokens per model; with no daemon the hook answers at once, starting none.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { closeSandbox, removeSandbox, runCli, sandbox, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { hookCommands, runHookCommand } from '../helpers/hookCommand.js';

type ModelRow = { model: string; input: number; output: number; cacheCreation: number; cacheRead: number };
type SessionReport = {
  session: string;
  job: string;
  from?: string;
  byModel: ModelRow[];
  byAgent: { agent: string; input: number; output: number }[];
  toolCalls: number;
  denials: number;
  ended?: { time: number; reason?: string };
};

/** One transcript line per agent, in its own format, with the usage recap reads from it. */
const TRANSCRIPTS: Record<string, (n: number) => unknown[]> = {
  claude: (n) => [
    {
      type: 'assistant',
      requestId: `r${n}`,
      message: { id: `m${n}`, model: 'claude-opus-5', usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 10, cache_read_input_tokens: 20 } },
    },
    {
      type: 'assistant',
      isSidechain: true,
      agentId: 'agent-a',
      requestId: `s${n}`,
      message: { id: `sm${n}`, model: 'claude-haiku-5', usage: { input_tokens: 300, output_tokens: 30 } },
    },
  ],
  gemini: (n) => [{ type: 'gemini', id: `g${n}`, model: 'gemini-3-pro', tokens: { input: 1220, output: 80, cached: 20 } }],
  qwen: (n) => [{ type: 'assistant', uuid: `q${n}`, model: 'qwen3-coder', usageMetadata: { promptTokenCount: 1220, candidatesTokenCount: 80, cachedContentTokenCount: 20 } }],
};

describe('a session end, through recap-hook', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let n = 0;

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
  });
  afterAll(() => closeSandbox(box, daemon));

  /** A session of `agent` in the sandbox's project, its transcript written when the agent has one. */
  function session(agent: string): { id: string; fields: Record<string, unknown> } {
    n += 1;
    const id = `${agent}-session-${n}`;
    const fields: Record<string, unknown> = { session_id: id, cwd: box.project };
    const lines = TRANSCRIPTS[agent]?.(n);
    if (lines !== undefined) {
      const dir = join(box.dir, 'transcripts');
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${id}.jsonl`);
      writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      fields.transcript_path = path;
    }
    return { id, fields };
  }

  const hook = (agent: string, payload: Record<string, unknown>) => runHookCommand(box, hookCommands(agent)['recap-hook'], payload);

  async function reportOf(id: string): Promise<SessionReport> {
    const run = await runCli(box, ['report', '--session', id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { session: SessionReport }).session;
  }

  it.each(['claude', 'gemini', 'qwen'])("%s: SessionEnd records the transcript's tokens per model, read at the end", async (agent) => {
    const { id, fields } = session(agent);
    const ended = await hook(agent, { ...fields, hook_event_name: 'SessionEnd', reason: 'exit' });
    expect(ended).toMatchObject({ code: 0, stdout: '' });
    const report = await reportOf(id);
    expect(report).toMatchObject({ session: id, job: jobIdFor(box.project), from: agent, ended: { reason: 'exit' } });
    const main = report.byModel.find((m) => m.model !== 'claude-haiku-5');
    // Gemini's and Qwen's prompt count holds the cached 20, which recap counts as cache read.
    expect(main).toMatchObject({ input: 1200, output: 80, cacheRead: 20 });
  });

  it("claude: a subagent's tokens are its own row, per model and per agent", async () => {
    const { id, fields } = session('claude');
    await hook('claude', { ...fields, hook_event_name: 'SessionEnd', reason: 'other' });
    const report = await reportOf(id);
    expect(report.byModel.map((m) => [m.model, m.input, m.output])).toEqual([
      ['claude-haiku-5', 300, 30],
      ['claude-opus-5', 1200, 80],
    ]);
    expect(report.byAgent.map((a) => [a.agent, a.input])).toEqual([
      ['agent-a', 300],
      ['main', 1200],
    ]);
  });

  it.each([
    ['codex', 'other'],
    ['copilot', 'complete'],
  ])('%s: SessionEnd records the end with its reason', async (agent, reason) => {
    const { id, fields } = session(agent);
    expect(await hook(agent, { ...fields, hook_event_name: 'UserPromptSubmit', prompt: 'List the files of the export folder.' })).toMatchObject({ code: 0 });
    expect(await hook(agent, { ...fields, hook_event_name: 'SessionEnd', reason })).toMatchObject({ code: 0, stdout: '' });
    expect(await reportOf(id)).toMatchObject({ from: agent, ended: { reason } });
  });

  it("counts the session's tool calls and denials: an open session shows its figures so far, then its end", async () => {
    const { id, fields } = session('claude');
    const tool = (command: string) => ({ ...fields, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t${n}` });
    await hook('claude', tool('ls'));
    const denied = await hook('claude', tool(`rm -rf ${box.data}`));
    expect(denied.stdout).toContain('"permissionDecision":"deny"');
    const open = await reportOf(id);
    expect(open).toMatchObject({ toolCalls: 2, denials: 1 });
    expect(open.ended).toBeUndefined();
    await hook('claude', { ...fields, hook_event_name: 'SessionEnd', reason: 'other' });
    expect(await reportOf(id)).toMatchObject({ toolCalls: 2, denials: 1, ended: { reason: 'other' } });
  });

  it('recap report lists the sessions, newest first, and says what to do for a session it does not know', async () => {
    const run = await runCli(box, ['report', '--json']);
    const sessions = (JSON.parse(run.stdout) as { sessions: { session: string }[] }).sessions.map((s) => s.session);
    expect(sessions[0]).toBe(`claude-session-${n}`);
    const unknown = await runCli(box, ['report', '--session', 'no-such-session']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no session "no-such-session" in the log');
  });
});

describe('a session end with no daemon', () => {
  it.each(['claude', 'gemini', 'codex', 'qwen', 'copilot'])('%s: recap-hook answers nothing and starts no daemon', async (agent) => {
    const box = sandbox();
    try {
      const payload = { session_id: 's', cwd: box.project, hook_event_name: 'SessionEnd', reason: 'exit' };
      expect(await runHookCommand(box, hookCommands(agent)['recap-hook'], payload)).toMatchObject({ code: 0, stdout: '' });
      expect(existsSync(box.socket)).toBe(false);
      // The way out still works: any recap command starts the daemon.
      const status = await runCli(box, ['status']);
      expect(status.code, status.stderr).toBe(0);
      await runCli(box, ['stop']);
    } finally {
      removeSandbox(box);
    }
  });
});
