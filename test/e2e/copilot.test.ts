// End to end: the real GitHub Copilot CLI (test/agents), with recap's hooks installed by
// `recap install copilot`, offline against a scripted model on 127.0.0.1, `--allow-all-tools`
// (Copilot CLI's own rules never deny: every deny is recap's). A first run shows what its
// bash tool carries, that only the user's prompt counts (not a subagent's) and that the
// subagent's calls are hooked; a second trips the gate with a long prompt, meets recap's deny
// for a bash call and a file write, submits a summary through bash with the command the deny
// named, and works again; a third starts a new session and is handed the summary; a fourth
// runs on a gate tripped by `recap trip` with the daemon stopped, and recap-hook itself denies. Then recap's hook command with
// recap-hook gone or crashing at load lets the call run, where a plain missing command
// (Copilot CLI's own behaviour) denies every call; and a deny cut to fit 64 KiB still denies.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recapCommand, recapHooksFile } from '../../src/agents/copilot/hooksFile.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertCopilotRuns, bash, copilotEnv, runCopilot, type CopilotResult } from '../helpers/copilotCli.js';
import { RECAP, removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { submitCommandIn } from '../helpers/gateAttack.js';
import { answer, callTool, MockOpenAIChat } from '../helpers/mockOpenAIChat.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';
import { goodSummary } from '../helpers/text.js';

const TEST_MS = 240_000;

// Shares no words with goodSummary(): finding the summary's words in the last session proves
// the summary (not the prompt) got there. Well over the default threshold of 500 tokens.
const PROMPT_SENTENCE = 'Please migrate the billing service from cron jobs to a queue, keep invoices idempotent, and log every retry with its cause. ';
const LONG_PROMPT = PROMPT_SENTENCE.repeat(30).trim();
const SHORT_PROMPT = 'List what the shell tool sees, please.';
const SUB_PROMPT = 'Write sub.txt from the shell, then report.';
const SUMMARY = goodSummary();
const SUMMARY_PHRASE = 'The user asked for a parser that reads the configuration file';
const DENIED = 'Denied by preToolUse hook: ';

function expectIn(haystack: string, needle: string, where: string, context = ''): void {
  expect(haystack.includes(needle), `${where} should contain ${JSON.stringify(needle)}\n${context}`).toBe(true);
}

/** Every message of a chat request, as text. */
const messagesOf = (request: RecordedRequest) =>
  ((request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? []).map((m) => ({
    role: m.role,
    text: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
  }));

describe('the GitHub Copilot CLI', () => {
  it('runs on this platform (the end-to-end tests below need it and fail, never skip, without it)', () => {
    expect(assertCopilotRuns()).toBe('GitHub Copilot CLI 1.0.102.');
  });
});

describe("the real GitHub Copilot CLI with recap's hooks file", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let job: string;
  let env: NodeJS.ProcessEnv;
  let launcher: string;
  let hooksFile: string;
  const runs: CopilotResult[] = [];

  const status = async () => JSON.parse((await runCli(box, ['status', '--json'])).stdout) as Record<string, unknown>;

  beforeAll(async () => {
    assertCopilotRuns();
    const base = sandbox();
    // The config file in a folder of its own: recap protects a config file's folder when its
    // name contains "recap", and the sandbox folder (recap-test-*) holds the project.
    const config = join(base.dir, 'etc', 'config.conf');
    const binDir = join(base.dir, 'bin');
    mkdirSync(binDir);
    symlinkSync(RECAP, join(binDir, 'recap'));
    const tmp = join(base.dir, 'tmp');
    mkdirSync(tmp);
    box = { ...base, config, env: { ...base.env, PATH: [binDir, dirname(process.execPath), process.env.PATH].join(delimiter), RECAP_CONFIG: config, TMPDIR: tmp } };
    job = jobIdFor(box.project);
    launcher = join(box.data, 'bin', 'recap');
    hooksFile = join(box.dir, '.copilot', 'hooks', 'recap.json');

    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'copilot', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(JSON.parse(installed.stdout)).toEqual({ file: hooksFile, mode: 'command', changed: true });
    mock = await MockOpenAIChat.start();
    env = copilotEnv(box.env, mock);
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    "counts the user's prompt, not a subagent's; hooks the subagent's calls; its bash tool carries the session",
    async () => {
      mock.script(
        bash('env > env.txt'),
        callTool('task', { description: 'Write a file', prompt: SUB_PROMPT, agent_type: 'task', name: 'writer' }),
        // The subagent's own turns, then the main thread's last.
        bash('echo sub > sub.txt'),
        answer('Sub done.'),
        answer('Listed.'),
      );
      const run = await runCopilot(box.project, env, SHORT_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(5);
      expect(readFileSync(join(box.project, 'sub.txt'), 'utf8')).toBe('sub\n');
      // The subagent's prompt reached the model but is no interaction of the user's.
      expectIn(mock.turnRequests[2]!.raw, SUB_PROMPT, "the subagent's request", ctx);
      expect(await status()).toMatchObject({ job, tripped: false, unsummarizedInteractions: 1 });

      const shellEnv = Object.fromEntries(
        readFileSync(join(box.project, 'env.txt'), 'utf8')
          .split('\n')
          .filter((l) => /^COPILOT\w*=/.test(l))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(shellEnv.COPILOT_CLI).toBe('1');
      expect(shellEnv.COPILOT_AGENT_SESSION_ID).toBe(run.session);
    },
    TEST_MS,
  );

  it(
    'gates a session: the long prompt trips it, a bash call and a file write are denied, the named submit clears it, work goes on',
    async () => {
      expect(runs, 'the first session must have run').toHaveLength(1);
      const notes = join(box.project, 'notes.md');
      let submitCommand = '';
      const first = mock.turnsTaken;
      mock.script(
        bash('echo hi > denied.txt'),
        callTool('create', { path: notes, file_text: 'never written\n' }),
        // The model takes the command the deny named, and fills in the summary.
        (request) => {
          const reason = mock.lastToolResult(request)?.text ?? '';
          submitCommand = `${submitCommandIn(reason).split('\n')[0]}\n${SUMMARY}\nEOF`;
          return bash(submitCommand);
        },
        bash('echo ok > ran.txt'),
        answer('Done.'),
      );
      const before = mock.requests.length;
      const run = await runCopilot(box.project, env, LONG_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken - first, ctx).toBe(5);

      // (1) The prompt was recorded and tripped the gate at once: the hook's context reached
      // the model with the first request, beside the prompt, before any tool ran.
      const request = mock.requests.slice(before).find((r) => r.kind === 'turn')!;
      expectIn(request.raw, PROMPT_SENTENCE.trim(), 'the first request', ctx);
      expectIn(request.raw, `recap: job ${job} needs a summary before any other tool can run`, 'the first request', ctx);

      // (2) The bash call and the file write were denied; the model read recap's reason.
      for (const index of [first, first + 1]) {
        const denied = mock.toolResult(index);
        expect(denied, ctx).toBeDefined();
        expect(denied!.text.startsWith(`${DENIED}recap: job ${job} needs a summary before any other tool can run: `), denied!.text).toBe(true);
        expect(denied!.text).toContain('submit it with exactly this bash command');
        expect(denied!.text).toContain(`${launcher} submit <<'EOF'`);
        expect(denied!.text).toContain('## Current State');
        expect(denied!.text).toContain(PROMPT_SENTENCE.trim());
      }
      expect(existsSync(join(box.project, 'denied.txt'))).toBe(false);
      expect(existsSync(notes)).toBe(false);

      // (3) The summary went through bash with the launcher the deny named, and was accepted.
      expect(submitCommand.startsWith(`${launcher} submit <<'EOF'\n`), submitCommand).toBe(true);
      expect(mock.toolResult(first + 2)?.text, ctx).not.toContain(DENIED);
      expect(await status()).toMatchObject({ job, tripped: false, summaries: 1, unsummarizedInteractions: 0 });
      expect((await runCli(box, ['chain', '--json'])).stdout).toContain(SUMMARY_PHRASE);

      // (4) The next tool call ran.
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
    },
    TEST_MS,
  );

  it(
    'hands a new session the summary through the SessionStart hook, before the first prompt',
    async () => {
      expect(runs, 'the sessions before must have run').toHaveLength(2);
      mock.script(answer('I have the summary.'));
      const before = mock.requests.length;
      const run = await runCopilot(box.project, env, 'What did we agree on so far?', mock);
      expect(run.session).not.toBe(runs[1]!.session);
      const request = mock.requests.slice(before).find((r) => r.kind === 'turn')!;
      const messages = messagesOf(request);
      const memory = messages.findIndex((m) => m.text.includes(`recap: the memory of job ${job}: 1 summaries in its chain.`));
      const prompt = messages.findIndex((m) => m.role === 'user' && m.text.includes('What did we agree on so far?'));
      expect(memory, mock.describe()).toBeGreaterThanOrEqual(0);
      expect(memory).toBeLessThan(prompt);
      expectIn(messages[memory]!.text, SUMMARY_PHRASE, 'the memory');
      expectIn(messages[memory]!.text, '## Current State', 'the memory');
      // It is the summary that came back, not a transcript of the first session.
      expect(request.raw.includes(PROMPT_SENTENCE.trim())).toBe(false);
      runs.push(run);
    },
    TEST_MS,
  );

  it(
    "with the daemon stopped, recap-hook itself denies a tool call of the tripped job, in Copilot CLI's format",
    async () => {
      const tripped = await runCli(box, ['trip', '--reason', 'end-to-end check']);
      expect(tripped.code, tripped.stderr).toBe(0);
      mock.script(bash('echo x > stopped.txt'), answer('Blocked, as expected.'));
      // The hook's deadline, shortened for the test: it gives up on the stopped daemon in 0.5 s, not 8.
      const stoppedEnv = { ...env, RECAP_HOOK_DEADLINE_MS: '500' };
      const first = mock.turnsTaken;
      daemon.child.kill('SIGSTOP');
      try {
        await runCopilot(box.project, stoppedEnv, 'Write the file now.', mock);
      } finally {
        daemon.child.kill('SIGCONT');
      }
      const denied = mock.toolResult(first);
      expect(denied?.text, mock.describe()).toContain(`${DENIED}recap: the daemon is not answering`);
      expect(denied!.text).toContain(`it last knew job ${job} as tripped`);
      expect(existsSync(join(box.project, 'stopped.txt'))).toBe(false);
    },
    TEST_MS,
  );

  it(
    'recap-hook gone or crashing at load lets calls run (recap removed: gate off), where a plain missing command would deny every call',
    async () => {
      const gone = join(box.dir, 'gone', 'recap-hook.cjs');
      const broken = join(box.dir, 'broken', 'recap-hook.cjs');
      mkdirSync(dirname(broken));
      writeFileSync(broken, 'this is not JavaScript (\n');
      const tries: [string, string, boolean][] = [
        ['gone.txt', recapCommand(gone), true],
        ['broken.txt', recapCommand(broken), true],
        // Copilot CLI's own behaviour with a command that is not found: the call is denied.
        ['plain.txt', `${gone} copilot`, false],
      ];
      for (const [file, command, runs] of tries) {
        writeFileSync(hooksFile, JSON.stringify(recapHooksFile(command)));
        mock.script(bash(`echo ran > ${file}`), answer('Done.'));
        const first = mock.turnsTaken;
        await runCopilot(box.project, env, `Write ${file}.`, mock);
        expect(existsSync(join(box.project, file)), `${file}: ${mock.toolResult(first)?.text}`).toBe(runs);
        if (!runs) expect(mock.toolResult(first)?.text).toContain('(hook errored)');
      }
      // The gate is still tripped: only recap-hook's absence let those calls through.
      expect(await status()).toMatchObject({ job, tripped: true });
    },
    TEST_MS,
  );

  it(
    "recap's deny of a reason far over Copilot CLI's 64 KiB is cut to fit, and Copilot CLI still denies and shows it",
    async () => {
      // A stand-in hook that prints exactly what recap's facts answer for a 300 KB reason,
      // escapes and multi-byte characters included; uncut, Copilot CLI would drop it and run the call.
      const facts = join(ROOT, 'dist', 'agents', 'copilot', 'facts.js');
      const script = join(box.dir, 'long-deny.mjs');
      writeFileSync(
        script,
        `import { copilotFacts } from ${JSON.stringify(facts)};\n` +
          `process.stdout.write(copilotFacts.deny('recap: a long reason.\\n' + 'Quote "this", tab\\there, é and 🙂.\\n'.repeat(9000)).stdout);\n`,
      );
      writeFileSync(hooksFile, JSON.stringify({ version: 1, hooks: { PreToolUse: [{ type: 'command', bash: `'${process.execPath}' '${script}'`, timeoutSec: 30 }] } }));
      mock.script(bash('echo long > long.txt'), answer('Done.'));
      const first = mock.turnsTaken;
      await runCopilot(box.project, env, 'Write long.txt.', mock);
      const denied = mock.toolResult(first)?.text ?? '';
      expect(denied.startsWith(`${DENIED}recap: a long reason.`), mock.describe()).toBe(true);
      expect(denied).toMatch(/\[recap cut the last \d+ characters to fit Copilot CLI's 64 KiB hook output limit\]$/);
      expect(existsSync(join(box.project, 'long.txt'))).toBe(false);
    },
    TEST_MS,
  );
});
