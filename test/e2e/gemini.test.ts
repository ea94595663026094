// End to end: the real Gemini CLI (test/agents), with recap's extension installed by `recap
// install gemini`, against a scripted model on 127.0.0.1. One `gemini -p` run trips the gate
// with its prompt, meets the deny on a shell call and a file write, submits a summary through
// run_shell_command with the command the deny named (recap-hook runs it), and works again (the model's usage read
// from the transcript once per answer); a second run starts a new session, is handed the
// memory, and only its own words are counted. A hook whose Node is gone bricks nothing; in a
// folder the user does not trust (interactive, in a terminal) the extension's hooks still
// count the prompt and deny the call; and a project's .env cannot point them elsewhere.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { geminiFacts } from '../../src/agents/gemini/facts.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, filledIn, SECTION_TEXT, submitCommandIn, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import { assertGeminiRuns, runGemini, runGeminiInteractive, type GeminiResult } from '../helpers/geminiCli.js';
import { answer, callTool, MockGemini, shell } from '../helpers/mockGemini.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';

const TEST_MS = 240_000;
const LONG_PROMPT = TRIP_PROMPTS.join('\n\n');
const SUMMARY_PHRASE = SECTION_TEXT['User Requests']!.slice(0, 60);
const BLOCKED = 'Tool execution blocked: ';

type Status = { job: string; tripped: boolean; unsummarizedTokens: number; unsummarizedInteractions: number; summaries: number };

function expectIn(haystack: string, needle: string, where: string, context = ''): void {
  expect(haystack.includes(needle), `${where} should contain ${JSON.stringify(needle)}\n${context}`).toBe(true);
}

describe('the Gemini CLI', () => {
  it('runs on this platform (the end-to-end tests below need it and fail, never skip, without it)', () => {
    expect(assertGeminiRuns()).toBe('0.61.0');
  });
});

describe("the real Gemini CLI with recap's extension", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockGemini;
  let project: string;
  let job: string;
  let env: NodeJS.ProcessEnv;
  let firstRun: GeminiResult;

  const status = async (cwd = project): Promise<Status> => {
    const result = await runCli(box, ['status', '--json'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Status;
  };
  const requestsSince = (count: number): RecordedRequest[] => mock.turnRequests.slice(count);

  beforeAll(async () => {
    assertGeminiRuns();
    const base = sandbox();
    // The config file in a folder of its own: recap protects a config file's folder when the
    // folder's name contains "recap", and the sandbox folder (recap-test-*) holds the project.
    const config = join(base.dir, 'etc', 'config.conf');
    mkdirSync(dirname(config));
    writeFileSync(config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`);
    box = { ...base, config, env: { ...base.env, RECAP_CONFIG: config, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) } };
    // Gemini CLI reports its folder resolved.
    project = realpathSync(box.project);
    job = jobIdFor(project);
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'gemini', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockGemini.start();
    // API-key auth: without it GOOGLE_GEMINI_BASE_URL selects gateway auth and the CLI stops.
    writeFileSync(
      join(box.dir, '.gemini', 'settings.json'),
      `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } })}\n`,
    );
    env = { ...box.env, GEMINI_API_KEY: 'test-key-any', GOOGLE_GEMINI_BASE_URL: mock.url, GEMINI_CLI_TRUST_WORKSPACE: 'true', LANG: 'C.UTF-8', NO_COLOR: '1' };
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it('installs an extension written by hand, not a settings hook', () => {
    const folder = join(box.dir, '.gemini', 'extensions', 'recap');
    expect(JSON.parse(readFileSync(join(folder, 'gemini-extension.json'), 'utf8'))).toMatchObject({ name: 'recap' });
    const hooks = JSON.parse(readFileSync(join(folder, 'hooks', 'hooks.json'), 'utf8')).hooks;
    expect(Object.keys(hooks)).toEqual(['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'SessionEnd']);
    expect(JSON.parse(readFileSync(join(box.dir, '.gemini', 'settings.json'), 'utf8')).hooks).toBeUndefined();
  });

  it(
    'gates a session: the prompt trips it, a shell call and a file write are denied, the submit from the deny clears it, work goes on',
    async () => {
      let submitted = '';
      mock.script(
        shell('echo before > before.txt'),
        callTool('write_file', { file_path: join(project, 'notes.md'), content: 'notes\n' }),
        // The model takes the command the deny named and fills in every section.
        (request) => {
          const denied = mock.lastToolResult(request);
          submitted = filledIn(submitCommandIn(denied?.text ?? ''));
          return shell(submitted);
        },
        shell('echo ok > ran.txt'),
        // What the agent's shell carries: recap's facts name its variables.
        shell('env'),
        answer('Done.'),
      );
      firstRun = await runGemini(project, env, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(6);

      // (1) BeforeAgent recorded the prompt and the gate tripped at once: its context reached
      // the model with the first request.
      const first = mock.turnRequests[0]!.raw;
      expectIn(first, TRIP_PROMPTS[0]!.slice(0, 80), 'the first request', ctx);
      expectIn(first, `recap: job ${job} needs a summary before any other tool can run`, 'the first request', ctx);

      // (2) The shell call was denied in Gemini CLI's words, with what to run and fill in.
      const shellDenied = mock.toolResult(0)!;
      expect(shellDenied.isError, ctx).toBe(true);
      expect(shellDenied.text.startsWith(`${BLOCKED}recap: job ${job} needs a summary`), shellDenied.text).toBe(true);
      expect(shellDenied.text).toContain(`${join(box.data, 'bin', 'recap')} submit <<'EOF'`);
      expect(shellDenied.text).toContain('## Current State');
      expect(existsSync(join(project, 'before.txt'))).toBe(false);

      // (3) So was the file write.
      const writeDenied = mock.toolResult(1)!;
      expect(writeDenied.isError).toBe(true);
      expect(writeDenied.text.startsWith(`${BLOCKED}recap: job ${job} needs a summary`), writeDenied.text).toBe(true);
      expect(existsSync(join(project, 'notes.md'))).toBe(false);

      // (4) The summary went through run_shell_command, by the deny's own command, and was
      // accepted: recap-hook ran it for the session (Gemini CLI's shell cannot name it) and
      // handed the model its output as the call's result.
      expect(submitted.startsWith(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n`)).toBe(true);
      const accepted = mock.toolResult(2)!;
      expect(accepted.text.startsWith(`${BLOCKED}recap ran this command for you in its hook`), accepted.text).toBe(true);
      expect(accepted.text).toContain('accepted:');
      expect(accepted.text).toContain('The gate is open: every tool works again.');
      expect(await status()).toMatchObject({ job, tripped: false, summaries: 1, unsummarizedInteractions: 0 });

      // (5) The next tool call ran.
      expect(mock.toolResult(3)?.isError).toBe(false);
      expect(readFileSync(join(project, 'ran.txt'), 'utf8')).toBe('ok\n');

      // (6) The shell marks itself with GEMINI_CLI=1 and carries no session id.
      const shellEnv = mock.toolResult(4)!.text;
      for (const name of geminiFacts.shellVariables) expect(shellEnv).toMatch(new RegExp(`^${name}=1$`, 'm'));
      const session = firstRun.events.find((e) => e.type === 'init')?.session_id;
      expect(typeof session).toBe('string');
      expect(shellEnv).not.toContain(session as string);
      expect(geminiFacts.sessionVariable).toBeUndefined();
      expect(firstRun.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });

      // (7) The model's usage came from the transcript, each answer once, though the CLI
      // writes an answer's record again when its tool calls are added.
      const report = await runCli(box, ['report', '--json']);
      const usage = (JSON.parse(report.stdout) as { jobs: { job: string; agents: { agent: string; input: number; output: number }[] }[] }).jobs
        .find((j) => j.job === job)
        ?.agents.find((a) => a.agent === 'main');
      // The mock reports 100 prompt and 20 answer tokens a request; the last answers are
      // written after the last hook read the transcript.
      expect([400, 500, 600], JSON.stringify(usage)).toContain(usage?.input);
      expect(usage!.output * 5).toBe(usage!.input);
    },
    TEST_MS,
  );

  it(
    "hands a new session the memory at SessionStart, and counts only the user's own words",
    async () => {
      expect(firstRun, 'the first session must have run').toBeDefined();
      const before = mock.turnRequests.length;
      mock.script(answer('I have the summary.'));
      const second = await runGemini(project, env, 'What did we agree on so far?', mock);
      const [request] = requestsSince(before);
      expect(request, mock.describe()).toBeDefined();
      expectIn(request!.raw, `recap: the memory of job ${job}: 1 summaries in its chain.`, "the new session's first request", mock.describe());
      expectIn(request!.raw, SUMMARY_PHRASE, "the new session's first request");
      expect(second.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
      // `-p` puts the memory in front of the prompt BeforeAgent sees: recap does not count it.
      const after = await status();
      expect(after).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
      expect(after.unsummarizedTokens).toBeLessThan(20);
    },
    TEST_MS,
  );

  it(
    "bricks nothing when the hook's Node is gone: prompts and tools go on, the user is told",
    async () => {
      const file = join(box.dir, '.gemini', 'extensions', 'recap', 'hooks', 'hooks.json');
      const saved = readFileSync(file, 'utf8');
      const gone = join(box.dir, 'old-node', 'bin', 'node');
      writeFileSync(file, saved.replaceAll(process.execPath, gone));
      try {
        mock.script(shell('echo stale > stale.txt'), answer('Done.'));
        const run = await runGemini(project, env, 'Write stale.txt, please.', mock);
        expect(run.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
        expect(readFileSync(join(project, 'stale.txt'), 'utf8')).toBe('stale\n');
        // The fallback's systemMessage goes to stderr in -p.
        expect(run.stderr).toContain(`recap: its hook (${gone}`);
        const doctor = await runCli(box, ['doctor']);
        expect(doctor.stdout).toMatch(new RegExp(`FAIL  gemini hooks .*${gone.replaceAll('/', '\\/')} does not exist`));
      } finally {
        writeFileSync(file, saved);
      }
    },
    TEST_MS,
  );

  it(
    'runs its hooks in a folder the user does not trust: the prompt is counted and a tool call denied',
    async () => {
      const untrusted = join(box.dir, 'untrusted');
      mkdirSync(join(untrusted, '.git'), { recursive: true });
      writeFileSync(join(box.dir, '.gemini', 'trustedFolders.json'), `${JSON.stringify({ [realpathSync(untrusted)]: 'DO_NOT_TRUST' })}\n`);
      // A trip needs something to summarize.
      expect((await runCli(box, ['record', '--kind', 'prompt', '--text', 'work in the untrusted folder'], { cwd: untrusted })).code).toBe(0);
      const tripped = await runCli(box, ['trip', '--reason', 'testing an untrusted folder'], { cwd: untrusted });
      expect(tripped.code, tripped.stderr).toBe(0);
      const otherJob = jobIdFor(realpathSync(untrusted));
      const before = await status(untrusted);
      expect(before).toMatchObject({ job: otherJob, tripped: true });
      const { GEMINI_CLI_TRUST_WORKSPACE: _trusted, ...untrustedEnv } = env;
      const start = mock.turnRequests.length;
      mock.script(shell('echo untrusted > u.txt'), answer('Done.'));
      const screen = await runGeminiInteractive(realpathSync(untrusted), untrustedEnv, 'Please write u.txt in this folder.', mock, mock.turnsAnswered(mock.turnsTaken + 2));
      expect(screen).toContain('This folder is untrusted');
      const [first, second] = requestsSince(start);
      expect(first, mock.describe()).toBeDefined();
      // SessionStart handed over the demand for a summary; BeforeAgent counted the prompt.
      expectIn(first!.raw, `recap: job ${otherJob} needs a summary`, 'the first request', mock.describe());
      const after = await status(untrusted);
      expect(after.unsummarizedInteractions).toBe(before.unsummarizedInteractions + 1);
      // BeforeTool denied the shell call before any confirmation.
      const denied = mock.lastToolResult(second);
      expect(denied?.isError).toBe(true);
      expect(denied?.text.startsWith(`${BLOCKED}recap: job ${otherJob} needs a summary`), denied?.text).toBe(true);
      expect(existsSync(join(untrusted, 'u.txt'))).toBe(false);
    },
    TEST_MS,
  );

  it(
    "keeps its hooks on recap's daemon when a trusted project's .env sets NODE_OPTIONS and recap's own variables",
    async () => {
      // Gemini CLI reads the project's .env into its hooks' environment: code run before
      // recap-hook would answer for it, another socket and data folder would be a daemon
      // with an empty log.
      const evil = join(box.dir, 'evil.cjs');
      writeFileSync(evil, "process.stdout.write('{}'); process.exit(0);\n");
      const fake = join(box.dir, 'fake');
      writeFileSync(join(project, '.env'), `NODE_OPTIONS=--require ${evil}\nRECAP_SOCKET=${fake}/recapd.sock\nRECAP_DATA_DIR=${fake}/data\n`);
      expect((await runCli(box, ['record', '--kind', 'prompt', '--text', 'work in the project'], { cwd: project })).code).toBe(0);
      const tripped = await runCli(box, ['trip', '--reason', 'testing a project .env'], { cwd: project });
      expect(tripped.code, tripped.stderr).toBe(0);
      mock.script(shell('echo dotenv > dotenv.txt'), answer('Done.'));
      const run = await runGemini(project, env, 'Write dotenv.txt, please.', mock);
      expect(run.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
      const denied = mock.lastToolResult();
      expect(denied?.isError, mock.describe()).toBe(true);
      expect(denied?.text.startsWith(`${BLOCKED}recap: job ${job} needs a summary`), denied?.text).toBe(true);
      expect(existsSync(join(project, 'dotenv.txt'))).toBe(false);
      expect(existsSync(fake)).toBe(false);
    },
    TEST_MS,
  );
});
