// End to end: a summary's Gist line and its ## Files section reach the next session. An
// earlier summary is submitted through the CLI; then the real agent (Claude Code, Qwen Code,
// and Gemini CLI, whose submit recap-hook runs for it in the project) trips the gate with its
// prompt and submits, through its shell, a summary that names a line range to read and a file to refer to. The test changes those lines, and a new
// session's first model request carries the memory: the newest summary whole, the earlier
// one's gist in the index, the range's lines as they are now (marked as changed) and the ref.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { RECAP, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, SECTION_TEXT, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import { answer as claudeAnswer, bash, MockAnthropic } from '../helpers/mockAnthropic.js';
import { answer, MockOpenAIChat, shell } from '../helpers/mockOpenAIChat.js';
import { answer as geminiAnswer, MockGemini, shell as geminiShell } from '../helpers/mockGemini.js';
import { assertGeminiRuns, runGemini } from '../helpers/geminiCli.js';
import { assertQwenRuns, runQwen } from '../helpers/qwenCli.js';
import { goodSummary, prose } from '../helpers/text.js';
import { expectIn, stringsOf } from '../helpers/requestText.js';

const TEST_MS = 60_000;
const LONG_PROMPT = TRIP_PROMPTS.join('\n\n');

// Room for one summary whole (about 400 tokens), not two: the earlier one goes to the index.
const CONFIG = `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\nCONTEXT_BUDGET=600\n`;

// No angle brackets: Qwen Code writes them as entities in the context it hands the model.
const APP = ['// The retry loop of the invoice sender.', 'let attempt = 0;', 'while (attempt !== 5) {', '  attempt += 1;', '}', 'export { attempt };', ''].join('\n');
const APP_NOW = ['// The retry loop of the invoice sender.', 'let attempt = 1;', 'while (attempt !== 7) {', '  attempt += 2;', '}', 'export { attempt };', ''].join('\n');
/** Lines 2-4 of APP_NOW: what the read entry hands over once the file has changed. */
const RANGE_NOW = 'let attempt = 1;\nwhile (attempt !== 7) {\n  attempt += 2;';
const NOTES = 'The plan: cap the retries at seven, then add jitter.\n';

const READ_LINE = '- read src/app.ts:2-4 — the retry loop under change';
const REF_LINE = '- ref docs/notes.md — where the plan is';
const GIST = 'Gist: Planned ConfigSyntaxError for parseConfigFile, the capped fetchWithBackoff, migrate0003 and the p95 panel source; nothing changed yet.';
const SECTIONS = Object.entries(SECTION_TEXT).map(([heading, text]) => `## ${heading}\n${text}`);
/** The summary the agent submits: a Gist line, the default sections, a Files section. */
const SUMMARY = [GIST, ...SECTIONS, `## Files\n${READ_LINE}\n${REF_LINE}`].join('\n\n');
/** The earlier summary, through the CLI: its gist is the index line the memory must show. */
const FIRST_SUMMARY = goodSummary();
const FIRST_GIST = /^Gist: (.*)$/m.exec(FIRST_SUMMARY)![1]!;

type Entry = { seq: number; gist?: string; refs?: { mode: string; path: string; start?: number; end?: number; why: string }[]; time: number };

/** A sandbox whose config (in a folder of its own: recap protects a config folder named *recap*) trips early and shows one summary whole. */
function memoryBox(): Sandbox {
  const base = sandbox();
  const config = join(base.dir, 'etc', 'config.conf');
  mkdirSync(dirname(config));
  writeFileSync(config, CONFIG);
  return { ...base, config, env: { ...base.env, RECAP_CONFIG: config } };
}

/** The box with `recap` on the PATH, as a user's install puts it, and this Node. */
function withRecapOnPath(base: Sandbox, env: NodeJS.ProcessEnv = {}): Sandbox {
  const binDir = join(base.dir, 'bin');
  mkdirSync(binDir);
  symlinkSync(RECAP, join(binDir, 'recap'));
  return { ...base, env: { ...base.env, PATH: [binDir, dirname(process.execPath), process.env.PATH].join(delimiter), ...env } };
}

/** The project's two files, and an earlier summary of another window, accepted through the CLI. */
async function seedProject(box: Sandbox, project: string): Promise<Entry> {
  mkdirSync(join(project, 'src'));
  mkdirSync(join(project, 'docs'));
  writeFileSync(join(project, 'src', 'app.ts'), APP);
  writeFileSync(join(project, 'docs', 'notes.md'), NOTES);
  for (const text of [prose(8), prose(8)]) expect((await runCli(box, ['record', '--kind', 'prompt', '--text', text], { cwd: project })).code).toBe(0);
  const submitted = await runCli(box, ['submit'], { cwd: project, input: FIRST_SUMMARY });
  expect(submitted.code, submitted.stderr).toBe(0);
  const [first] = await chain(box, project);
  expect(first).toMatchObject({ gist: FIRST_GIST });
  return first!;
}

async function chain(box: Sandbox, project: string): Promise<Entry[]> {
  const result = await runCli(box, ['chain', '--json'], { cwd: project });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { entries: Entry[] }).entries;
}

/** The agent's summary was accepted after the first, with its gist and both references. */
async function expectAccepted(box: Sandbox, project: string): Promise<Entry> {
  const entries = await chain(box, project);
  expect(entries).toHaveLength(2);
  const second = entries[1]!;
  expect(second.gist).toBe(GIST.slice('Gist: '.length));
  expect(second.refs).toEqual([
    expect.objectContaining({ mode: 'read', path: 'src/app.ts', start: 2, end: 4, why: 'the retry loop under change' }),
    expect.objectContaining({ mode: 'ref', path: 'docs/notes.md', why: 'where the plan is' }),
  ]);
  return second;
}

/**
 * The memory in a new session's first request (all its text): the newest summary whole, its
 * files as they are now, the index of the earlier one.
 */
function expectMemory(request: string, job: string, first: Entry, second: Entry): void {
  const header = `recap: the memory of job ${job}: 2 summaries in its chain.`;
  const at = request.indexOf(header);
  expect(at, `the new session's first request should hold the memory (${JSON.stringify(header)})`).toBeGreaterThanOrEqual(0);
  const memory = request.slice(at);
  expectIn(memory, `### Summary #${second.seq}, `, 'the memory');
  expectIn(memory, SECTION_TEXT['Current State']!, 'the memory');
  expect(memory, 'the earlier summary is in the index, not shown whole').not.toContain(`### Summary #${first.seq}, `);
  // The files part on its own, so the summary's own Files lines (shown whole above) prove nothing.
  const start = memory.indexOf(`Files named by summary #${second.seq} (read: their contents now; ref: where to look):`);
  expect(start, `the memory should hand over the files of summary #${second.seq}\n${memory.slice(0, 8000)}`).toBeGreaterThanOrEqual(0);
  const index = memory.indexOf('Index of ', start);
  const files = memory.slice(start, index < 0 ? undefined : index);
  expectIn(files, `${READ_LINE} [changed since the summary: its contents now]\n\`\`\`\n${RANGE_NOW}\n\`\`\``, 'the files part');
  expectIn(files, REF_LINE, 'the files part');
  // Only the range as it is now: neither the file's other lines nor what the range held before.
  expect(files).not.toContain('invoice sender');
  expect(files).not.toContain('attempt !== 5');
  const day = new Date(first.time).toISOString().slice(0, 10);
  expectIn(memory, 'Index of the 1 summary not shown whole, newest first', 'the memory');
  expectIn(memory, `#${first.seq} ${day} — ${FIRST_GIST}`, 'the memory');
}

describe("the real Claude Code hands a summary's gist and files to the next session", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let env: NodeJS.ProcessEnv;
  let job: string;
  let first: Entry;
  let second: Entry | undefined;

  beforeAll(async () => {
    assertClaudeRuns();
    box = withRecapOnPath(memoryBox());
    job = jobIdFor(box.project);
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    first = await seedProject(box, box.project);
    mock = await MockAnthropic.start();
    env = claudeEnv(box.env, mock);
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    'accepts a summary with a Gist line and a Files section submitted through Bash on a tripped gate',
    async () => {
      mock.script(bash(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`, 'submit the summary'), claudeAnswer('Done.'));
      await runClaude(box.project, env, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.turnsTaken, ctx).toBe(2);
      // The prompt tripped the gate at once: the demand reached the first request.
      expectIn(stringsOf(mock.turnRequests[0]!.body), `recap: job ${job} needs a summary before any other tool can run`, 'the first request');
      const submitted = mock.toolResult(0);
      expect(submitted, ctx).toBeDefined();
      expect(submitted!.isError, submitted!.text).toBe(false);
      expect(submitted!.text).toContain('accepted');
      second = await expectAccepted(box, box.project);
    },
    TEST_MS,
  );

  it(
    "hands a new session, after the read lines changed, the index, the range's lines now and the ref",
    async () => {
      expect(second, 'the summary must have been accepted').toBeDefined();
      writeFileSync(join(box.project, 'src', 'app.ts'), APP_NOW);
      const before = mock.turnRequests.length;
      mock.script(claudeAnswer('I have the memory.'));
      const run = await runClaude(box.project, env, 'What did we agree on so far?', mock);
      const request = mock.turnRequests.slice(before).find((r) => r.session === run.json.session_id);
      expect(request, mock.describe()).toBeDefined();
      expectMemory(stringsOf(request!.body), job, first, second!);
    },
    TEST_MS,
  );
});

describe("the real Qwen Code hands a summary's gist and files to the next session", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let env: NodeJS.ProcessEnv;
  let job: string;
  let first: Entry;
  let second: Entry | undefined;

  beforeAll(async () => {
    assertQwenRuns();
    const base = memoryBox();
    const tmp = join(base.dir, 'tmp');
    mkdirSync(tmp);
    box = withRecapOnPath(base, { TMPDIR: tmp });
    job = jobIdFor(box.project);
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'qwen']);
    expect(installed.code, installed.stderr).toBe(0);
    first = await seedProject(box, box.project);
    mock = await MockOpenAIChat.start();
    env = { ...box.env, OPENAI_API_KEY: 'test-key-any', OPENAI_BASE_URL: mock.url, OPENAI_MODEL: 'mock-model', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', NO_COLOR: '1' };
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    'accepts a summary with a Gist line and a Files section submitted through run_shell_command on a tripped gate',
    async () => {
      mock.script(shell(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`), answer('Done.'));
      const run = await runQwen(box.project, env, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(2);
      expectIn(stringsOf(mock.turnRequests[0]!.body), `recap: job ${job} needs a summary before any other tool can run`, 'the first request');
      // Qwen Code's shell carries the session and reaches the daemon: the submit ran there.
      const submitted = mock.toolResult(0);
      expect(submitted?.text, ctx).toContain('Exit Code: 0');
      expect(submitted!.text).toContain('accepted');
      expect(run.events.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
      second = await expectAccepted(box, box.project);
    },
    TEST_MS,
  );

  it(
    "hands a new session, after the read lines changed, the index, the range's lines now and the ref",
    async () => {
      expect(second, 'the summary must have been accepted').toBeDefined();
      writeFileSync(join(box.project, 'src', 'app.ts'), APP_NOW);
      const before = mock.turnRequests.length;
      mock.script(answer('I have the memory.'));
      const run = await runQwen(box.project, env, 'What did we agree on so far?', mock);
      expect(run.events.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
      const [request] = mock.turnRequests.slice(before);
      expect(request, mock.describe()).toBeDefined();
      // SessionStart's context is in the system prompt.
      expectIn(stringsOf(request!.body), 'qwen:session-start-context', "the new session's first request");
      expectMemory(stringsOf(request!.body), job, first, second!);
    },
    TEST_MS,
  );
});

describe("the real Gemini CLI hands a summary's gist and files to the next session", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockGemini;
  let env: NodeJS.ProcessEnv;
  let project: string;
  let job: string;
  let first: Entry;
  let second: Entry | undefined;

  beforeAll(async () => {
    assertGeminiRuns();
    const base = memoryBox();
    box = { ...base, env: { ...base.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) } };
    // Gemini CLI reports its folder resolved.
    project = realpathSync(box.project);
    job = jobIdFor(project);
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'gemini']);
    expect(installed.code, installed.stderr).toBe(0);
    first = await seedProject(box, project);
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

  it(
    'accepts a summary with a Gist line and a Files section submitted through run_shell_command on a tripped gate',
    async () => {
      mock.script(geminiShell(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`), geminiAnswer('Done.'));
      const run = await runGemini(project, env, LONG_PROMPT, mock);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(2);
      expectIn(stringsOf(mock.turnRequests[0]!.body), `recap: job ${job} needs a summary before any other tool can run`, 'the first request');
      // recap-hook ran the submit for the session (Gemini CLI's shell cannot name recap) and
      // handed the model its output.
      const submitted = mock.toolResult(0);
      expect(submitted?.text, ctx).toContain('recap ran this command for you in its hook');
      expect(submitted!.text).toContain('accepted:');
      expect(run.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
      second = await expectAccepted(box, project);
    },
    TEST_MS,
  );

  it(
    "hands a new session, after the read lines changed, the index, the range's lines now and the ref",
    async () => {
      expect(second, 'the summary must have been accepted').toBeDefined();
      writeFileSync(join(project, 'src', 'app.ts'), APP_NOW);
      const before = mock.turnRequests.length;
      mock.script(geminiAnswer('I have the memory.'));
      const run = await runGemini(project, env, 'What did we agree on so far?', mock);
      expect(run.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
      const [request] = mock.turnRequests.slice(before);
      expect(request, mock.describe()).toBeDefined();
      expectMemory(stringsOf(request!.body), job, first, second!);
    },
    TEST_MS,
  );
});
