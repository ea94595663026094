// End to end: the real Qwen Code CLI (test/agents) compresses its conversation with recap's
// command hooks installed by `recap install qwen` and a summary accepted, against a scripted
// model on 127.0.0.1. Its compression request carries recap's instructions under "Additional
// Instructions:": on an auto-compression (a small context window and threshold in its
// settings, so the request after a tool round passes it) and on `/compress keep ...` in a
// `-p` run resumed on that session, after the user's own words. With the daemon stopped the
// compression goes on, without recap's words.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer, MockOpenAIChat, shell, type ChatBody } from '../helpers/mockOpenAIChat.js';
import { assertQwenRuns, runQwen, type QwenResult } from '../helpers/qwenCli.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';
import { goodSummary, notes } from '../helpers/text.js';

const TEST_MS = 240_000;
/** The last words of every compression request of Qwen Code 0.24.4 (COMPRESSION_REQUEST_DIRECTIVE). */
const DIRECTIVE = 'produce the <state_snapshot> XML.';
const SNAPSHOT = '<analysis>Short.</analysis>\n<state_snapshot>The user works on a config parser.</state_snapshot>';
const HEAD = /^recap: when you summarize this conversation, keep what recap's summary #\d+ \("[^"]+"\) records/;
const FILES = '## Files\n- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described';

const texts = (request: RecordedRequest): string[] =>
  ((request.body as ChatBody).messages ?? []).map((m) =>
    typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('\n') : '',
  );
const isCompression = (request: RecordedRequest) => texts(request).at(-1)?.includes(DIRECTIVE) === true;

/** What follows "Additional Instructions:" in a compression request, or undefined when it has none. */
function additionalInstructions(request: RecordedRequest): string | undefined {
  const marker = '\n\nAdditional Instructions:\n';
  const text = texts(request).find((t) => t.includes(marker));
  return text?.slice(text.indexOf(marker) + marker.length);
}

/** The compression requests the mock received since request number `after`. */
const compressions = (mock: MockOpenAIChat, after: number) => mock.requests.slice(after).filter(isCompression);

/** goodSummary's decisions, directives and files, as recap's instructions must carry them. */
function expectSteered(instructions: string | undefined, context: string): void {
  expect(instructions, context).toBeDefined();
  for (const k of [3, 4, 5]) expect(instructions).toContain(`- ${notes(1, k)}`);
  expect(instructions).toContain(`The user's directives (its "User Requests" section):`);
  expect(instructions).toContain(notes(1, 0));
  expect(instructions).toContain('- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described');
  expect(instructions).not.toContain(notes(1, 12));
}

describe("the real Qwen Code compressing with recap's PreCompact hook", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let qwenEnv: NodeJS.ProcessEnv;
  let session = '';

  beforeAll(async () => {
    assertQwenRuns();
    const base = sandbox();
    // The config file in a folder of its own: recap protects a config file's folder when its
    // name contains "recap", and the sandbox folder (recap-test-*) holds the project.
    const config = join(base.dir, 'etc', 'config.conf');
    const tmp = join(base.dir, 'tmp');
    mkdirSync(tmp);
    box = { ...base, config, env: { ...base.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter), RECAP_CONFIG: config, TMPDIR: tmp } };
    mkdirSync(join(box.project, 'src'));
    mkdirSync(join(box.project, 'docs'));
    writeFileSync(join(box.project, 'src', 'parser.ts'), 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
    writeFileSync(join(box.project, 'docs', 'config.md'), '# The config file\n');

    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'qwen']);
    expect(installed.code, installed.stderr).toBe(0);
    // Beside recap's hooks, Qwen Code's own settings: a 40,000-token window and a threshold of
    // 1 %, so it compresses once a request passes 400 tokens (the mock reports 1,200 for every
    // answer) and there is a conversation to compress; no background memory extraction, whose
    // requests would take scripted turns.
    const file = join(box.dir, '.qwen', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const compressEarly = { model: { generationConfig: { contextWindowSize: 40_000 } }, context: { autoCompactThreshold: 0.01 } };
    writeFileSync(file, JSON.stringify({ ...settings, ...compressEarly, memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false } }, null, 2));
    mock = await MockOpenAIChat.start([], { usage: true });
    qwenEnv = { ...box.env, OPENAI_API_KEY: 'test-key-any', OPENAI_BASE_URL: mock.url, OPENAI_MODEL: 'mock-model', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', NO_COLOR: '1' };

    // A first session's prompt (one request: nothing to compress yet), then a summary of it naming files.
    mock.script(answer('Noted.'));
    await runQwen(box.project, qwenEnv, 'Start on the config parser, please.', mock);
    const submitted = await runCli(box, ['submit'], { input: `${goodSummary()}\n\n${FILES}` });
    expect(submitted.code, submitted.stdout + submitted.stderr).toBe(0);
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  const sessionOf = (run: QwenResult) => run.events.find((e) => typeof e.session_id === 'string')?.session_id as string;

  it(
    "an auto-compression's request carries recap's instructions",
    async () => {
      // The compression request offers the tools (it shares the chat's cache), so it takes a scripted turn.
      mock.script(shell('true'), (request) => answer(isCompression(request) ? SNAPSHOT : 'Done.'), answer('Done.'));
      const before = mock.requests.length;
      const run = await runQwen(box.project, qwenEnv, 'Run true, please.', mock);
      session = sessionOf(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      // The first session's turn, then all three: no turn is left over for the next run.
      expect(mock.turnsTaken, ctx).toBe(4);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });
      const [request, ...more] = compressions(mock, before);
      expect(request, `no compression request\n${ctx}`).toBeDefined();
      const instructions = additionalInstructions(request!);
      expect(instructions, ctx).toMatch(HEAD);
      expectSteered(instructions, ctx);
      // A second request (the dedicated summarizer, when the first answer would not do) carries them too.
      for (const other of more) expect(additionalInstructions(other)).toMatch(HEAD);
      // The turn goes on after the compression with recap's memory still in its system prompt.
      const next = mock.requests.filter((r) => r.n > request!.n && r.kind === 'turn' && !isCompression(r)).at(-1);
      expect(next && texts(next)[0], ctx).toContain(`recap: the memory of job ${jobIdFor(box.project)}: 1 summaries in its chain.`);
    },
    TEST_MS,
  );

  it(
    "`/compress keep ...` in a resumed -p run: the request carries the user's words, then recap's instructions",
    async () => {
      expect(session, 'the auto-compression session must have run').not.toBe('');
      mock.script(() => answer(SNAPSHOT));
      const before = mock.requests.length;
      const run = await runQwen(box.project, qwenEnv, '/compress keep the parser notes', mock, ['--resume', session]);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', subtype: 'success', result: expect.stringMatching(/^Context compressed/) });
      const [request] = compressions(mock, before);
      expect(request, `no compression request\n${ctx}`).toBeDefined();
      const instructions = additionalInstructions(request!)!;
      expect(instructions.startsWith('keep the parser notes\n\nrecap: when you summarize this conversation'), instructions.slice(0, 300)).toBe(true);
      expectSteered(instructions, ctx);
    },
    TEST_MS,
  );

  it(
    "with the daemon stopped, `/compress` compresses all the same, without recap's words",
    async () => {
      expect(session, 'the auto-compression session must have run').not.toBe('');
      mock.script(() => answer(SNAPSHOT));
      const before = mock.requests.length;
      // Each hook waits out recap-hook's own 8 s deadline (the installed hook's env pins it), then the fallback answers.
      daemon.child.kill('SIGSTOP');
      let run: QwenResult;
      try {
        run = await runQwen(box.project, qwenEnv, '/compress keep the parser notes', mock, ['--resume', session]);
      } finally {
        daemon.child.kill('SIGCONT');
      }
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(run.events.at(-1), ctx).toMatchObject({ type: 'result', subtype: 'success', result: expect.stringMatching(/^Context compressed/) });
      const [request] = compressions(mock, before);
      expect(request, `no compression request\n${ctx}`).toBeDefined();
      // The user's own words only: the hook answered nothing, and blocked nothing.
      expect(additionalInstructions(request!)?.startsWith('keep the parser notes'), ctx).toBe(true);
      expect(texts(request!).join('\n')).not.toContain('recap: when you summarize this conversation');
    },
    TEST_MS,
  );
});
