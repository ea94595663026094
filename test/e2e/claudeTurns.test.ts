// End to end with the real Claude Code: the turns it makes itself are not the user's. A
// background task's notification comes back through UserPromptSubmit and is recorded as
// its own kind, not counted; an auto-compaction fires PostCompact, whose summary is
// recorded, and SessionStart `compact`, which hands recap's memory back to the model.
import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, runClaude } from '../helpers/claudeCli.js';
import { RECAP, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer, callTool, COMPACTION_ANSWER, MockAnthropic } from '../helpers/mockAnthropic.js';
import { goodSummary } from '../helpers/text.js';

const TEST_MS = 240_000;

type Recorded = { kind: string; counted: boolean; text: string };

describe("the real Claude Code's own turns", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let job: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    assertClaudeRuns();
    const base = sandbox();
    const config = join(base.dir, 'etc', 'config.conf');
    mkdirSync(dirname(config));
    const binDir = join(base.dir, 'bin');
    mkdirSync(binDir);
    symlinkSync(RECAP, join(binDir, 'recap'));
    box = { ...base, config, env: { ...base.env, PATH: [binDir, dirname(process.execPath), process.env.PATH].join(delimiter), RECAP_CONFIG: config } };
    job = jobIdFor(box.project);
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
    env = {
      ...box.env,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-any',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
    };
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  const recorded = async (): Promise<Recorded[]> => {
    const result = await runCli(box, ['log', '--type', 'InteractionRecorded', '--json', '--job', job]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { data: Recorded }).data)
      .map(({ kind, counted, text }) => ({ kind, counted, text }));
  };

  it(
    "records a finished background task's notification as task-notification, not counted",
    async () => {
      mock.script(
        callTool('Bash', { command: 'echo background-done', description: 'run in the background', run_in_background: true }),
        answer('Started it in the background.'),
        answer('The background command finished.'),
      );
      await runClaude(box.project, env, 'Run echo in the background.', mock);
      const kinds = (await recorded()).map(({ kind, counted }) => [kind, counted]);
      expect(kinds, mock.describe()).toEqual([
        ['prompt', true],
        ['task-notification', false],
      ]);
      const notification = (await recorded())[1]!.text;
      expect(notification).toMatch(/^<task-notification>/);
    },
    TEST_MS,
  );

  it(
    "hands the memory back after an auto-compaction, and records Claude's compaction summary, not counted",
    async () => {
      const summary = await runCli(box, ['submit'], { input: goodSummary() });
      expect(summary.code, summary.stderr).toBe(0);
      const before = await recorded();
      // A turn that reports 190,000 tokens in use of a 200,000-token window makes Claude Code
      // compact before its next request (CLAUDE_CODE_AUTO_COMPACT_WINDOW pins the window:
      // Claude Code does not know the mock's model).
      mock.script({ ...callTool('Bash', { command: 'echo step-one', description: 'first step' }), contextTokens: 190_000 }, answer('Done after the compaction.'));
      const run = await runClaude(box.project, { ...env, ANTHROPIC_MODEL: 'claude-sonnet-4-5', CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' }, 'Do the first step.', mock);
      const compactions = mock.requests.filter((r) => r.kind === 'compaction');
      expect(compactions.length, mock.describe()).toBe(1);
      const after = mock.requests.filter((r) => r.kind === 'turn' && r.session === run.json.session_id).at(-1)!;
      expect(after.n).toBeGreaterThan(compactions[0]!.n);
      expect(after.raw).toContain(`recap: the memory of job ${job}: 1 summaries in its chain.`);

      const added = (await recorded()).slice(before.length);
      expect(added.map(({ kind, counted }) => [kind, counted])).toEqual([
        ['prompt', true],
        ['compact-summary', false],
      ]);
      expect(added[1]!.text).toContain(COMPACTION_ANSWER.slice(0, 40));
    },
    TEST_MS,
  );
});
