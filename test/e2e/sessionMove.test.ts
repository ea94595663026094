// End to end: in one real Claude Code session the model, while the gate is open, makes a
// folder with its own `.git`, moves into it and poisons its own transcript (`echo null >>`,
// `[]`, a number). When the user then trips the gate, its tools are still denied on
// the job its session started in, and the deny's own `recap submit`, run from the moved
// folder, clears that job, after which its next tool runs there.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { RECAP, removeSandbox, runCli, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { configuredSandbox } from '../helpers/configuredSandbox.js';
import { filledIn, submitCommandIn } from '../helpers/gateAttack.js';
import { answer, bash, MockAnthropic, read } from '../helpers/mockAnthropic.js';

const TEST_MS = 240_000;

describe("the real Claude Code, moving and poisoning its transcript under recap's command hooks", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;

  beforeAll(async () => {
    assertClaudeRuns();
    box = configuredSandbox('', { recap: RECAP });
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    "is denied on its first job after `mkdir x && touch x/.git && cd x` and `echo null >>` its transcript, and gets out with the deny's command from x",
    async () => {
      const job = jobIdFor(box.project);
      const x = join(box.project, 'x');
      const transcripts = '"$(ls -t "$HOME"/.claude/projects/*/*.jsonl | head -1)"';
      mock.script(
        bash('mkdir x && touch x/.git && cd x', 'a folder of its own'),
        bash(`echo null >> ${transcripts} && printf '[]\\n42\\n' >> ${transcripts}`, 'poison the transcript'),
        // The user trips the gate by hand: a trip by the context's size would wait on Claude
        // Code writing its usage to the transcript, which it does before or after the hook.
        async () => {
          const tripped = await runCli(box, ['trip', '--reason', 'time to summarize']);
          expect(tripped.code, tripped.stderr).toBe(0);
          return read(join(x, 'notes.md'));
        },
        (request) => bash(filledIn(submitCommandIn(MockAnthropic.lastToolResult(request)?.text ?? '')), 'submit the summary'),
        bash('pwd > where.txt', 'where am I'),
        answer('Done.'),
      );
      await runClaude(box.project, claudeEnv(box.env, mock), 'Set up the x sub-project and read its notes.', mock);
      const ctx = mock.describe();
      expect(mock.turnsTaken, ctx).toBe(6);

      expect(mock.toolResult(0)?.isError, ctx).toBe(false);
      expect(existsSync(join(x, '.git'))).toBe(true);
      expect(mock.toolResult(1)?.isError, ctx).toBe(false);

      // The gate is tripped: the Read in x is denied on the session's first job.
      const denied = mock.toolResult(2);
      expect(denied?.isError, ctx).toBe(true);
      expect(denied!.text).toContain(`recap: job ${job} needs a summary`);

      // The deny's own command, run by the Bash tool in x, cleared that job.
      const submitted = mock.toolResult(3);
      expect(submitted?.isError, submitted?.text).toBe(false);
      const status = await runCli(box, ['status', '--json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ job, tripped: false, summaries: 1 });

      // And the next tool ran, in x.
      expect(mock.toolResult(4)?.isError, mock.toolResult(4)?.text).toBe(false);
      expect(readFileSync(join(x, 'where.txt'), 'utf8').trim()).toBe(x);
    },
    TEST_MS,
  );
});
