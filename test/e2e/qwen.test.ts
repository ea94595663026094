// End to end: the real Qwen Code CLI (test/agents, run on this Node 20 although it asks for
// 22), with recap's hooks installed by `recap install qwen`, against a scripted model on
// 127.0.0.1. A first `qwen -p` run with tool rounds shows what its shell tool carries and
// that only the user's prompt is counted; a second trips the gate with a long prompt, meets
// the deny reason for a shell call and a file write, submits a summary through
// run_shell_command with the command the deny named, and works again; a third starts a new
// session and is handed the summary; a fourth starts on a gate tripped by `recap trip`; a
// fifth runs with the daemon stopped, and recap-hook itself denies its shell call.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCAPED_NOTE } from '../../src/agents/qwen/facts.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { RECAP, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { submitCommandIn } from '../helpers/gateAttack.js';
import { answer, callTool, MockOpenAIChat, shell, USAGE } from '../helpers/mockOpenAIChat.js';
import { assertQwenRuns, runQwen, type QwenResult } from '../helpers/qwenCli.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';
import { goodSummary } from '../helpers/text.js';

const TEST_MS = 240_000;

// Shares no words with goodSummary(): finding the summary's words in the last session proves
// the summary (not the prompt) got there. Well over the default threshold of 500 tokens.
const PROMPT_SENTENCE = 'Please migrate the billing service from cron jobs to a queue, keep invoices idempotent, and log every retry with its cause. ';
const LONG_PROMPT = PROMPT_SENTENCE.repeat(30).trim();
const SHORT_PROMPT = 'List what the shell tool sees, please.';
const SUMMARY = goodSummary();
const SUMMARY_PHRASE = 'The user asked for a parser that reads the configuration file';

type Report = { jobs: { job: string; summaries: number; agents: { agent: string; interactions: number; denials: number; input: number; output: number }[] }[] };

function expectIn(haystack: string, needle: string, where: string, context = ''): void {
  expect(haystack.includes(needle), `${where} should contain ${JSON.stringify(needle)}\n${context}`).toBe(true);
}

function expectNotIn(haystack: string, needle: string, where: string): void {
  expect(haystack.includes(needle), `${where} should not contain ${JSON.stringify(needle)}`).toBe(false);
}

/** The session id a stream-json run reports. */
const sessionOf = (run: QwenResult) => run.events.find((e) => typeof e.session_id === 'string')?.session_id as string;

/** The system prompt a chat request carries. */
const systemOf = (request: RecordedRequest) =>
  ((request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [])
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

describe('the Qwen Code CLI', () => {
  it('runs on this platform (the end-to-end tests below need it and fail, never skip, without it)', () => {
    expect(assertQwenRuns()).toBe('0.24.4');
  });
});

describe("the real Qwen Code with recap's command hooks", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let job: string;
  let qwenEnv: NodeJS.ProcessEnv;
  let launcher: string;
  const runs: QwenResult[] = [];

  const report = async () => {
    const result = await runCli(box, ['report', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const row = (JSON.parse(result.stdout) as Report).jobs.find((j) => j.job === job);
    return row?.agents.find((a) => a.agent === 'main');
  };

  beforeAll(async () => {
    assertQwenRuns();
    const base = sandbox();
    // The config file in a folder of its own: recap protects a config file's folder when its
    // name contains "recap", and the sandbox folder (recap-test-*) holds the project.
    const config = join(base.dir, 'etc', 'config.conf');
    const binDir = join(base.dir, 'bin');
    mkdirSync(binDir);
    symlinkSync(RECAP, join(binDir, 'recap'));
    const tmp = join(base.dir, 'tmp');
    mkdirSync(tmp);
    const env = { ...base.env, PATH: [binDir, dirname(process.execPath), process.env.PATH].join(delimiter), RECAP_CONFIG: config, TMPDIR: tmp };
    box = { ...base, config, env };
    job = jobIdFor(box.project);
    launcher = join(box.data, 'bin', 'recap');

    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'qwen', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(JSON.parse(installed.stdout)).toEqual({ file: join(box.dir, '.qwen', 'settings.json'), mode: 'command', changed: true });
    mock = await MockOpenAIChat.start([], { usage: true });
    qwenEnv = {
      ...box.env,
      OPENAI_API_KEY: 'test-key-any',
      OPENAI_BASE_URL: mock.url,
      OPENAI_MODEL: 'mock-model',
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
      NO_COLOR: '1',
    };
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    "counts the user's prompt once, not the requests after each tool round, and its shell carries the session",
    async () => {
      mock.script(shell('env > env.txt'), shell('true'), answer('Listed.'));
      const run = await runQwen(box.project, qwenEnv, SHORT_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(3);
      // Three model requests, so three UserPromptSubmit hooks: one prompt.
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
      expect(status).toMatchObject({ job, tripped: false, unsummarizedInteractions: 1 });
      expect((await report())?.interactions).toBe(1);

      const env = Object.fromEntries(
        readFileSync(join(box.project, 'env.txt'), 'utf8')
          .split('\n')
          .filter((l) => /^(QWEN|GEMINI|CLAUDE)\w*=/.test(l))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(env.QWEN_CODE).toBe('1');
      expect(env.QWEN_CODE_SESSION_ID).toBe(sessionOf(run));
    },
    TEST_MS,
  );

  it(
    'gates a session: the long prompt trips it, a shell call and a file write are denied, the named submit clears it, work goes on',
    async () => {
      expect(runs, 'the first session must have run').toHaveLength(1);
      const notes = join(box.project, 'notes.md');
      let submitCommand = '';
      mock.script(
        shell('echo hi > denied.txt'),
        callTool('write_file', { file_path: notes, content: 'never written\n' }),
        // The model takes the command the deny named, and fills in the summary.
        (request) => {
          const reason = mock.lastToolResult(request)?.text ?? '';
          submitCommand = `${submitCommandIn(reason).split('\n')[0]}\n${SUMMARY}\nEOF`;
          return shell(submitCommand);
        },
        shell('echo ok > ran.txt'),
        answer('Done.'),
      );
      const before = mock.requests.length;
      const run = await runQwen(box.project, qwenEnv, LONG_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(8);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });

      // (1) The prompt was recorded and tripped the gate at once: the hook's context reached
      // the model with the first request, before any tool ran.
      const first = mock.requests.slice(before).find((r) => r.kind === 'turn')!;
      expectIn(first.raw, PROMPT_SENTENCE.trim(), 'the first request', ctx);
      expectIn(first.raw, `recap: job ${job} needs a summary before any other tool can run`, 'the first request', ctx);
      expectIn(first.raw, 'qwen:user-prompt-submit-context', 'the first request', ctx);

      // (2) The shell call and the file write were denied; the model read the reason verbatim.
      for (const index of [3, 4]) {
        const denied = mock.toolResult(index);
        expect(denied, ctx).toBeDefined();
        expect(denied!.text).toMatch(new RegExp(`^recap: job ${job} needs a summary before any other tool can run: \\d+ unsummarized tokens reached the threshold of 500`));
        expect(denied!.text).toContain('submit it with exactly this run_shell_command command');
        expect(denied!.text).toContain(`${launcher} submit <<'EOF'`);
        expect(denied!.text).toContain('## Current State');
        expect(denied!.text).toContain(PROMPT_SENTENCE.trim());
      }
      expect(existsSync(join(box.project, 'denied.txt'))).toBe(false);
      expect(existsSync(notes)).toBe(false);

      // (3) The summary went through run_shell_command with the launcher the deny named, and
      // was accepted: the gate is open.
      expect(submitCommand.startsWith(`${launcher} submit <<'EOF'\n`), submitCommand).toBe(true);
      const submitted = mock.toolResult(5);
      expect(submitted?.text, ctx).toContain('Exit Code: 0');
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
      expect(status).toMatchObject({ job, tripped: false, summaries: 1, unsummarizedInteractions: 0 });
      expect((await runCli(box, ['chain', '--json'])).stdout).toContain(SUMMARY_PHRASE);

      // (4) The next tool call ran.
      expect(mock.toolResult(6)?.text).toContain('Exit Code: 0');
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');

      // Both prompts counted, nothing else; both denials recorded; the transcript's usage
      // read, each assistant record once: the mock reports the same usage on every answer.
      const row = await report();
      expect(row).toMatchObject({ interactions: 2, denials: 2 });
      const records = row!.output / USAGE.completion_tokens;
      expect(Number.isInteger(records) && records > 0, JSON.stringify(row)).toBe(true);
      const cached = USAGE.prompt_tokens_details.cached_tokens;
      expect(row).toMatchObject({ input: records * (USAGE.prompt_tokens - cached), cacheRead: records * cached, cacheCreation: 0 });
    },
    TEST_MS,
  );

  it(
    'hands a new session the summary through the SessionStart hook, in the system prompt',
    async () => {
      expect(runs, 'the sessions before must have run').toHaveLength(2);
      mock.script(answer('I have the summary.'));
      const before = mock.requests.length;
      const run = await runQwen(box.project, qwenEnv, 'What did we agree on so far?', mock);
      expect(sessionOf(run)).not.toBe(sessionOf(runs[1]!));
      const requests = mock.requests.slice(before).filter((r) => r.kind === 'turn');
      expect(requests.length, mock.describe()).toBeGreaterThan(0);
      const system = systemOf(requests[0]!);
      const where = "the new session's system prompt";
      expectIn(system, 'qwen:session-start-context', where, mock.describe());
      expectIn(system, `recap: the memory of job ${job}: 1 summaries in its chain.`, where);
      expectIn(system, SUMMARY_PHRASE, where);
      expectIn(system, '## Current State', where);
      // It is the summary that came back, not a transcript of the first session.
      expectNotIn(requests[0]!.raw, PROMPT_SENTENCE.trim(), "the new session's first request");
      expect(run.events.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'I have the summary.' });
      runs.push(run);
    },
    TEST_MS,
  );

  it(
    "a session started on a tripped gate is told what to write; Qwen Code escapes < and >, and recap's note says so",
    async () => {
      expect(runs, 'the sessions before must have run').toHaveLength(3);
      const tripped = await runCli(box, ['trip', '--reason', 'end-to-end check']);
      expect(tripped.code, tripped.stderr).toBe(0);
      mock.script(answer('I will summarize first.'));
      const before = mock.requests.length;
      await runQwen(box.project, qwenEnv, 'Carry on with the queue migration.', mock);
      const system = systemOf(mock.requests.slice(before).find((r) => r.kind === 'turn')!);
      const where = "the tripped session's system prompt";
      expectIn(system, `recap: job ${job} needs a summary: a user asked for a summary now: end-to-end check.`, where, mock.describe());
      expectIn(system, `${launcher} submit &lt;&lt;'EOF'`, where);
      // recap's note holds neither sign, so it reaches the model as written.
      expectIn(system, ESCAPED_NOTE, where);
    },
    TEST_MS,
  );

  it(
    "with the daemon stopped, recap-hook itself denies a tool call of the tripped job, in Qwen Code's format, and the model reads why",
    async () => {
      mock.script(shell('echo x > stopped.txt'), answer('Blocked, as expected.'));
      // The hook's deadline, shortened for the test: it gives up on the stopped daemon in 0.5 s, not 8.
      const env = { ...qwenEnv, RECAP_HOOK_DEADLINE_MS: '500' };
      const before = mock.turnsTaken;
      daemon.child.kill('SIGSTOP');
      try {
        await runQwen(box.project, env, 'Write the file now.', mock);
      } finally {
        daemon.child.kill('SIGCONT');
      }
      const denied = mock.toolResult(before);
      expect(denied?.text, mock.describe()).toContain(`recap: the daemon is not answering`);
      expect(denied!.text).toContain(`it last knew job ${job} as tripped (manual)`);
      expect(denied!.text).toContain(`${launcher} submit <<'EOF'`);
      expect(existsSync(join(box.project, 'stopped.txt'))).toBe(false);
      expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject({ job, tripped: true });
    },
    TEST_MS,
  );
});
