// End to end: the real Claude Code CLI, with recap's hooks installed by `recap install
// claude` (command hooks, then HTTP hooks), against a scripted model on 127.0.0.1. One
// `claude -p` run trips the gate with a long prompt, meets the deny reason, fails to chain a
// command onto `recap submit`, submits a summary through Bash and then works again; a second
// run starts a new session and is handed the summary; a third compacts on its own, and a
// `/compact` resumes the second: each summary request carries recap's instructions to keep
// that summary's decisions, directives and files.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, CLAUDE, runClaude, type ClaudeResult } from '../helpers/claudeCli.js';
import { freePort, RECAP, removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer, bash, contentText, MockAnthropic, read, type RecordedRequest } from '../helpers/mockAnthropic.js';
import { goodSummary, notes } from '../helpers/text.js';

const TEST_MS = 240_000;
const SECTIONS = ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State'];

// The prompt must not share words with goodSummary(), so finding the summary's words in the
// second session proves the summary (not the prompt) got there. About 25 tokens a sentence,
// 30 sentences: well over the default threshold of 500 tokens.
const PROMPT_SENTENCE = 'Please migrate the billing service from cron jobs to a queue, keep invoices idempotent, and log every retry with its cause. ';
const LONG_PROMPT = PROMPT_SENTENCE.repeat(30).trim();
// A ref hands over the file's name only: the notes stay out of every request.
const SUMMARY = `${goodSummary()}\n\n## Files\n- ref notes.md — the notes the user keeps beside the work`;
const NOTES = 'Notes the model must never see while the gate is tripped.';
const SUMMARY_PHRASE = 'The user asked for a parser that reads the configuration file';

/** Whether a (large) request body holds `needle`; on failure, says so briefly rather than printing the body. */
function expectIn(haystack: string, needle: string, where: string, context = ''): void {
  expect(haystack.includes(needle), `${where} should contain ${JSON.stringify(needle)}\n${context}`).toBe(true);
}

function expectNotIn(haystack: string, needle: string, where: string): void {
  expect(haystack.includes(needle), `${where} should not contain ${JSON.stringify(needle)}`).toBe(false);
}

const requestsOf = (mock: MockAnthropic, session: string): RecordedRequest[] => mock.requests.filter((r) => r.session === session);

describe('the Claude Code CLI', () => {
  it('runs on this platform (the end-to-end tests below need it and fail, never skip, without it)', () => {
    expect(assertClaudeRuns()).toMatch(/^\d+\.\d+\.\d+ \(Claude Code\)$/);
  });
});

describe.each([{ mode: 'command' as const }, { mode: 'http' as const }, { mode: 'plugin' as const }])("the real Claude Code with recap's $mode hooks", ({ mode }) => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let job: string;
  let claudeEnv: NodeJS.ProcessEnv;
  let firstRun: ClaudeResult;
  let secondRun: ClaudeResult;

  beforeAll(async () => {
    assertClaudeRuns();
    const base = sandbox();
    // The config file in a folder of its own: recap protects a config file's folder when the
    // folder's name contains "recap", and the sandbox folder (recap-test-*) holds the project.
    const config = join(base.dir, 'etc', 'config.conf');
    // `recap` on the PATH, as a user's install puts it: a symlink to the package's bin script.
    const binDir = join(base.dir, 'bin');
    mkdirSync(binDir);
    symlinkSync(RECAP, join(binDir, 'recap'));
    // `claude` too: `recap install claude --plugin` runs Claude Code's own plugin commands.
    symlinkSync(CLAUDE, join(binDir, 'claude'));
    const path = [binDir, dirname(process.execPath), process.env.PATH].join(delimiter);
    const env = { ...base.env, PATH: path, RECAP_CONFIG: config, RECAP_HTTP_PORT: String(await freePort()) };
    box = { ...base, config, env };
    job = jobIdFor(box.project);

    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude', ...(mode === 'command' ? [] : [`--${mode}`]), '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
    claudeEnv = {
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

  it("installs recap's hooks into the sandbox's user settings", () => {
    const settings = JSON.parse(readFileSync(join(box.dir, '.claude', 'settings.json'), 'utf8'));
    if (mode === 'plugin') {
      // Enabled from the package's own marketplace folder, offline; no hooks in the settings.
      expect(settings).toMatchObject({
        enabledPlugins: { 'recap@recap-local': true },
        extraKnownMarketplaces: { 'recap-local': { source: { source: 'directory', path: join(ROOT, 'claude-plugin') } } },
      });
      expect(settings.hooks).toBeUndefined();
      expect(readFileSync(join(box.dir, '.claude', 'plugins', 'data', 'recap-recap-local', 'node'), 'utf8')).toBe(process.execPath);
      return;
    }
    const first = (event: string) => settings.hooks[event][0].hooks[0];
    const expected = mode === 'http' ? { type: 'http', url: `http://127.0.0.1:${box.env.RECAP_HTTP_PORT}/hooks/claude` } : { type: 'command' };
    for (const event of ['PreToolUse', 'UserPromptSubmit', 'PostToolUse']) expect(first(event)).toMatchObject(expected);
    // Claude Code runs SessionStart hooks only as commands.
    expect(first('SessionStart')).toMatchObject({ type: 'command', command: expect.stringMatching(/^\/bin\/sh \S*\/bin\/recap-hook\.sh \S+ claude$/) });
  });

  it(
    'gates a session: the long prompt trips it, a Read and a chained submit are denied, a here-document submit clears it, work goes on',
    async () => {
      mock.script(
        read(join(box.project, 'notes.md')),
        // recap by the launcher in its data folder, as the deny message names it.
        bash(`${join(box.data, 'bin', 'recap')} submit --file s.md; touch chained.txt`, 'submit and touch'),
        bash(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`, 'submit the summary'),
        bash('echo ok > ran.txt', 'write ran.txt'),
        answer('Done.'),
      );
      writeFileSync(join(box.project, 'notes.md'), `${NOTES}\n`);
      firstRun = await runClaude(box.project, claudeEnv, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.turnsTaken, ctx).toBe(5);
      expect(
        mock.turnRequests.filter((r) => r.turn === -1),
        ctx,
      ).toEqual([]);

      // (1) UserPromptSubmit recorded the prompt and the gate tripped at once: the hook's
      // context reached the model with the first request, before any tool ran.
      const firstTurn = mock.turnRequests[0]!;
      expectIn(firstTurn.raw, PROMPT_SENTENCE.trim(), 'the first request', ctx);
      expectIn(firstTurn.raw, `recap: job ${job} needs a summary before any other tool can run`, 'the first request', ctx);

      // (2) The Read was denied; the model was told what to run and what to fill in.
      const denied = mock.toolResult(0);
      expect(denied, ctx).toBeDefined();
      expect(denied!.isError).toBe(true);
      expect(denied!.text).toContain(`recap: job ${job} needs a summary`);
      expect(denied!.text).toMatch(/\d+ unsummarized tokens reached the threshold of 500/);
      expect(denied!.text).toContain("recap submit <<'EOF'");
      for (const section of SECTIONS) expect(denied!.text).toContain(`## ${section}`);
      expect(denied!.text).toContain('200 to 1000 tokens in total');
      expect(denied!.text).toContain(PROMPT_SENTENCE.trim());
      for (const request of mock.requests) expectNotIn(request.raw, NOTES, `request #${request.n}`);

      // (3) A command chained onto recap submit was denied and never ran.
      const chained = mock.toolResult(1);
      expect(chained, ctx).toBeDefined();
      expect(chained!.isError).toBe(true);
      expect(chained!.text).toContain('the shell operator ; is not allowed');
      expect(chained!.text).toContain("recap submit <<'EOF'");
      expect(existsSync(join(box.project, 'chained.txt'))).toBe(false);

      // (4) The summary went through Bash, as a quoted here-document, and was accepted.
      const submitted = mock.toolResult(2);
      expect(submitted, ctx).toBeDefined();
      expect(submitted!.isError, submitted!.text).toBe(false);
      const status = await runCli(box, ['status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ job, tripped: false, summaries: 1 });
      const chain = await runCli(box, ['chain', '--json']);
      expect(chain.stdout).toContain(SUMMARY_PHRASE);

      // (5) The next tool call ran.
      const ran = mock.toolResult(3);
      expect(ran?.isError, ran?.text).toBe(false);
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
      expect(firstRun.json.result).toBe('Done.');
      // Claude Code counts the hooks' denials as permission denials, and only those.
      expect(firstRun.json.permission_denials?.map((d) => d.tool_use_id)).toEqual([mock.toolUseId(0), mock.toolUseId(1)]);
    },
    TEST_MS,
  );

  it(
    'hands a new session the summary through the SessionStart hook',
    async () => {
      expect(firstRun, 'the first session must have run').toBeDefined();
      mock.script(answer('I have the summary.'));
      const second = await runClaude(box.project, claudeEnv, 'What did we agree on so far?', mock);
      secondRun = second;
      const session = second.json.session_id;
      expect(session).not.toBe(firstRun.json.session_id);
      const requests = requestsOf(mock, session).filter((r) => r.kind === 'turn');
      expect(requests.length, mock.describe()).toBeGreaterThan(0);
      const body = requests[0]!.raw;
      const where = "the new session's first request";
      expectIn(body, `recap: the memory of job ${job}: 1 summaries in its chain.`, where, mock.describe());
      expectIn(body, SUMMARY_PHRASE, where);
      expectIn(body, '## Current State', where);
      // It is the summary that came back, not a transcript of the first session.
      expectNotIn(body, PROMPT_SENTENCE.trim(), where);
      expect(second.json.result).toBe('I have the summary.');
    },
    TEST_MS,
  );

  /** The text of a compaction request: what Claude Code asked the model to summarize, and how. */
  const compactionText = (request: RecordedRequest) => (request.body?.messages ?? []).map((m) => contentText(m.content)).join('\n');

  /** The summary request carries recap's instructions to keep summary #1's decisions, directives and files. */
  function expectSteered(asked: string, before: string): void {
    const where = 'the summary request';
    expectIn(asked, `Additional Instructions:\n${before}recap: when you summarize this conversation, keep what recap's summary #`, where, asked.slice(-3000));
    expectIn(asked, 'The decisions and their reasons (its "Questions & Decisions" section):', where);
    for (const k of [3, 4, 5]) expectIn(asked, `- ${notes(1, k)}`, where);
    expectIn(asked, `The user's directives (its "User Requests" section):`, where);
    expectIn(asked, '- ref notes.md — the notes the user keeps beside the work', where);
    expectNotIn(asked, NOTES, where);
  }

  it(
    "steers Claude's own summary when a later session compacts on its own: the summary request asks to keep the summary's decisions, directives and files",
    async () => {
      expect(firstRun, 'the first session must have run').toBeDefined();
      // A turn that reports 190,000 tokens in use of a 200,000-token window makes Claude Code
      // compact before its next request (CLAUDE_CODE_AUTO_COMPACT_WINDOW pins the window:
      // Claude Code does not know the mock's model). PreCompact fires before the summary request.
      mock.script({ ...bash('echo step-one', 'first step'), contextTokens: 190_000 }, answer('Done after the compaction.'));
      const env = { ...claudeEnv, ANTHROPIC_MODEL: 'claude-sonnet-4-5', CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' };
      const run = await runClaude(box.project, env, 'Do the first step.', mock);
      const compactions = requestsOf(mock, run.json.session_id).filter((r) => r.kind === 'compaction');
      expect(compactions.length, mock.describe()).toBe(1);
      expectSteered(compactionText(compactions[0]!), '');
      expect(run.json.result).toBe('Done after the compaction.');
    },
    TEST_MS,
  );

  it(
    "steers a manual /compact of a later session, after the user's own instructions",
    async () => {
      expect(secondRun, 'the second session must have run').toBeDefined();
      // `-p "/compact ..."` on a resumed session compacts it; a fresh one has too little to compact.
      const session = secondRun.json.session_id;
      const before = mock.requests.length;
      await runClaude(box.project, claudeEnv, '/compact keep the billing migration in view', mock, 'Bash,Read', ['--resume', session]);
      const compactions = mock.requests.slice(before).filter((r) => r.kind === 'compaction');
      expect(compactions.length, mock.describe()).toBe(1);
      expectSteered(compactionText(compactions[0]!), 'keep the billing migration in view\n\n');
    },
    TEST_MS,
  );

  it.runIf(mode === 'plugin')(
    "runs the plugin's /recap:status in a session, and recap uninstall claude removes the plugin",
    async () => {
      mock.script(answer('The gate is open.'));
      const run = await runClaude(box.project, claudeEnv, '/recap:status', mock);
      const first = requestsOf(mock, run.json.session_id).find((r) => r.kind === 'turn');
      expect(first, mock.describe()).toBeDefined();
      // The command ran `recap status` through the plugin's bin/ and handed its output over.
      expectIn(first!.raw, `job ${job}: gate open`, "the command's request", mock.describe());
      expectIn(first!.raw, 'summaries: 1', "the command's request");

      const removed = await runCli(box, ['uninstall', 'claude']);
      expect(removed.code, removed.stderr).toBe(0);
      const settings = JSON.parse(readFileSync(join(box.dir, '.claude', 'settings.json'), 'utf8'));
      expect(settings.enabledPlugins?.['recap@recap-local']).toBeUndefined();
      expect(settings.extraKnownMarketplaces?.['recap-local']).toBeUndefined();
      const doctor = await runCli(box, ['doctor', '--json']);
      expect(JSON.stringify(JSON.parse(doctor.stdout))).not.toContain('claude plugin');
    },
    TEST_MS,
  );
});
