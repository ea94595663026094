// recap eval --log as a user runs it: a job with two accepted summaries made through the real
// daemon, the first from prompts recorded by the CLI, the second from a Claude Code session's
// hooks (a prompt, a read of src/parser.ts, its end) and a summary whose Files names that file,
// exported with recap export (once as it is, once after recap redact), and each summary's
// window judged again, with the memory after it. --probes is in evalProbes.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { closeSandbox, RawClient, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

let JOB: string;
let box: Sandbox;
let daemon: DaemonProcess;
let plain: string;
let redacted: string;

type Line = { seq: number; type: string; data: { tokens?: number; job?: string } };
type Window = {
  job: string;
  index: number;
  seq: number;
  interactions: number;
  calls: { text: string }[];
  windowTokens: number;
  now: string;
  memoryTokens: number;
  problems: string[];
};

async function cli(args: string[], input?: string): Promise<string> {
  const run = await runCli(box, args, input === undefined ? {} : { input });
  if (run.code !== 0) throw new Error(`recap ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Each accepted summary's seq, and the tokens of the interactions since the one before it. */
function expectedWindows(exported: string): { seq: number; tokens: number }[] {
  const lines = exported
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as Line);
  const windows: { seq: number; tokens: number }[] = [];
  let tokens = 0;
  for (const line of lines) {
    if (line.type === 'InteractionRecorded') tokens += line.data.tokens!;
    if (line.type === 'SummaryAccepted') {
      windows.push({ seq: line.seq, tokens });
      tokens = 0;
    }
  }
  return windows;
}

/** A Claude Code session's hooks on the raw socket, as the agent's hook commands send them. */
async function claudeSession(session: string, prompts: string[], read: string): Promise<void> {
  const client = await RawClient.connect(box.socket);
  let id = 0;
  const hook = async (payload: Record<string, unknown>) => {
    const response = await client.request({
      id: (id += 1),
      op: 'hook',
      agent: 'claude',
      payload: { session_id: session, transcript_path: `/tmp/none/${session}.jsonl`, cwd: box.project, ...payload },
    });
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
  };
  await hook({ hook_event_name: 'SessionStart', source: 'startup' });
  await hook({ hook_event_name: 'UserPromptSubmit', prompt: prompts[0] });
  await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: read }, tool_use_id: 't1' });
  await hook({ hook_event_name: 'UserPromptSubmit', prompt: prompts[1] });
  await hook({ hook_event_name: 'SessionEnd', reason: 'other' });
  client.close();
}

beforeAll(async () => {
  ({ box, daemon } = await sandboxWithDaemon());
  JOB = jobIdFor(box.project);
  mkdirSync(join(box.project, 'src'));
  writeFileSync(join(box.project, 'src', 'parser.ts'), 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
  await cli(['record', '--text', prose(15)]);
  await cli(['record', '--text', `${prose(14)} Round 0.`]);
  await cli(['submit'], goodSummary(undefined, 0));
  await claudeSession('A', [prose(15), `${prose(14)} Round 1.`], join(box.project, 'src', 'parser.ts'));
  await cli(['submit'], `${goodSummary(undefined, 1)}\n\n## Files\n- ref src/parser.ts — the config parser under change\n`);
  plain = join(box.dir, 'plain.jsonl');
  await cli(['export', '--out', plain]);
  const first = expectedWindows(await cli(['export']))[0]!.seq;
  await cli(['redact', String(first), '--yes', '--reason', 'a test']);
  redacted = join(box.dir, 'redacted.jsonl');
  await cli(['export', '--out', redacted]);
}, 60_000);

afterAll(() => closeSandbox(box, daemon));

describe('recap eval --log', () => {
  it("gives each accepted summary its window's tokens, today's verdict and the memory after it", async () => {
    const { code, stdout } = await runCli(box, ['eval', '--json', '--log', plain]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { log: string; figures: { windows: number; accepted: number; rejected: number }; windows: Window[] };
    const expected = expectedWindows(await cli(['export']));
    expect(result.figures).toMatchObject({ windows: 2, accepted: 2, rejected: 0 });
    expect(result.windows.map((w) => ({ job: w.job, index: w.index, seq: w.seq, interactions: w.interactions, tokens: w.windowTokens, now: w.now }))).toEqual([
      { job: JOB, index: 1, seq: expected[0]!.seq, interactions: 2, tokens: expected[0]!.tokens, now: 'accepted' },
      { job: JOB, index: 2, seq: expected[1]!.seq, interactions: 2, tokens: expected[1]!.tokens, now: 'accepted' },
    ]);
    // The session's read, as its first calls were recorded at its end, is in the second window only.
    expect(result.windows.map((w) => w.calls.map((c) => c.text))).toEqual([[], [`read ${join(box.project, 'src', 'parser.ts')}`]]);
    // The second memory shows both summaries: it is the larger.
    expect(result.windows[1]!.memoryTokens).toBeGreaterThan(result.windows[0]!.memoryTokens);
  });

  it('prints a row per window on the terminal', async () => {
    const { stdout } = await runCli(box, ['eval', '--log', plain]);
    expect(stdout).toContain(`recap eval: 2 windows from ${plain}; today's rules accept 2, reject 0`);
    expect(stdout).toMatch(new RegExp(`^${JOB} +#1 +\\d+ +\\d+ +accepted +\\d+$`, 'm'));
    expect(stdout).toMatch(new RegExp(`^${JOB} +#2 +\\d+ +\\d+ +accepted +\\d+$`, 'm'));
  });

  it('reads a redacted export: the redacted summary cannot be judged, the next one is', async () => {
    const { code, stdout } = await runCli(box, ['eval', '--log', redacted]);
    expect(code).toBe(0);
    expect(stdout).toContain('accept 1, reject 0, and 1 redacted cannot be judged');
    expect(stdout).toMatch(new RegExp(`^${JOB} +#1 +\\d+ +\\d+ +redacted +\\d+$`, 'm'));
    expect(stdout).toMatch(new RegExp(`^${JOB} +#2 +\\d+ +\\d+ +accepted +\\d+$`, 'm'));
  });

  it('refuses a file that is no export, saying what to give, and --log with --corpus', async () => {
    expect(await runCli(box, ['eval', '--log', box.config])).toMatchObject({ code: 1 });
    const missing = join(box.dir, 'none.jsonl');
    expect(await runCli(box, ['eval', '--log', missing])).toMatchObject({ code: 1, stderr: `recap: cannot read ${missing} (ENOENT); give a file recap export wrote\n` });
    expect(await runCli(box, ['eval', '--log', plain, '--corpus', box.dir])).toMatchObject({ code: 1, stderr: 'recap: give --log FILE or --corpus DIR, not both\n' });
  });
});
