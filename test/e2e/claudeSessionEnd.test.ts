// End to end: the real Claude Code against the scripted model ends a `-p` session, its
// SessionEnd hook (reason "other") records the session's report, and `recap report --session`
// shows the session's tokens per model as the scripted model reported them, and its tool call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertClaudeRuns, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { RawClient, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer, bash, MockAnthropic } from '../helpers/mockAnthropic.js';

const TEST_MS = 180_000;

type ModelRow = { model: string; input: number; output: number; cacheCreation: number; cacheRead: number };

describe("the real Claude Code ends a session: recap's report of it", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;

  beforeAll(async () => {
    assertClaudeRuns();
    box = sandbox();
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
  });
  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    'records SessionEnded at the end of claude -p, and recap report --session shows its tokens per model',
    async () => {
      // Two scripted turns, each reported by the mock as 100 input and 20 output tokens.
      mock.script(bash('ls', 'list the files'), answer('The project folder holds a .git folder.'));
      const run = await runClaude(box.project, claudeEnv(box.env, mock), 'List the files of this project.', mock, 'Bash');
      const session = run.json.session_id;

      const client = await RawClient.connect(box.socket);
      try {
        // Claude Code may finish its SessionEnd hook after it has printed its result: wait for the event.
        const page = await client.request({ id: 1, op: 'events', types: ['SessionEnded'], wait: 20_000 });
        const events = (page.result as { events: { data: { session: string; reason?: string } }[] }).events;
        expect(events.map((e) => [e.data.session, e.data.reason])).toEqual([[session, 'other']]);
      } finally {
        client.close();
      }

      const reported = await runCli(box, ['report', '--session', session, '--json']);
      expect(reported.code, reported.stderr).toBe(0);
      const report = (JSON.parse(reported.stdout) as { session: { from: string; toolCalls: number; ended?: { reason?: string }; byModel: ModelRow[] } }).session;
      expect(report).toMatchObject({ from: 'claude', ended: { reason: 'other' } });
      // The one Bash call the scripted model made.
      expect(report.toolCalls).toBe(1);
      const turns = mock.requests.filter((r) => r.kind === 'turn' && r.session === session);
      expect(turns.length).toBe(2);
      const model = turns[0]!.body!.model!;
      const row = report.byModel.find((m) => m.model === model);
      expect(row, `${model} in ${JSON.stringify(report.byModel)}`).toBeDefined();
      // The mock reports 100 input and 20 output tokens a turn.
      expect([row!.input, row!.output]).toEqual([200, 40]);
      const text = await runCli(box, ['report', '--session', session]);
      expect(text.stdout).toContain(`session ${session} (claude)`);
      expect(text.stdout).toMatch(new RegExp(`${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+200\\s`));
    },
    TEST_MS,
  );
});
