// End to end: the real opencode (test/agents, its compiled Bun binary) with recap's plugin
// written by `recap install opencode`, against a scripted model on 127.0.0.1. A first run
// with a subagent shows what the bash tool carries and that only the user's prompt counts; a
// second trips the gate with a long prompt, meets the deny for a bash call and a file write,
// submits a summary through bash with the command the deny named, and works again; a third
// starts a new session and finds the summary in its system prompt; a fourth runs with the
// daemon stopped, and recap-hook, which the plugin hands over to, denies from the verdict
// file. Another run, against a socket that records what the plugin sends, keeps the payload
// fixtures (test/fixtures/agents/opencode) true to what the plugin sends from real hooks.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameReader, encodeFrame } from '../../src/common/frames.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { RECAP, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { submitCommandIn } from '../helpers/gateAttack.js';
import { fixtureText, keyPaths, FIXTURES } from '../helpers/hookRecorder.js';
import { answer, callTool, MockOpenAIChat } from '../helpers/mockOpenAIChat.js';
import { assertOpencodeRuns, configureOpencode, runOpencode, type OpencodeResult } from '../helpers/opencodeCli.js';
import type { RecordedRequest } from '../helpers/scriptedModel.js';
import { goodSummary } from '../helpers/text.js';

const TEST_MS = 240_000;

const PROMPT_SENTENCE = 'Please migrate the billing service from cron jobs to a queue, keep invoices idempotent, and log every retry with its cause. ';
const LONG_PROMPT = PROMPT_SENTENCE.repeat(30).trim();
const SHORT_PROMPT = 'List what the shell tool sees, please.';
const SUBAGENT_PROMPT = 'Write the environment of your bash tool into sub-env.txt.';
const SUMMARY = goodSummary();
const SUMMARY_PHRASE = 'The user asked for a parser that reads the configuration file';

const bash = (command: string) => callTool('bash', { command, description: 'run it' });

/** The system messages of a chat request. */
const systemOf = (request: RecordedRequest) =>
  ((request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [])
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

function envFile(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^(?:OPENCODE|RECAP_OPENCODE)\w*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** A sandbox whose home has the folders opencode writes, and recap on PATH. */
function opencodeBox(): Sandbox {
  const base = sandbox();
  const config = join(base.dir, 'etc', 'config.conf');
  const binDir = join(base.dir, 'bin');
  const tmp = join(base.dir, 'tmp');
  for (const dir of [binDir, tmp, dirname(config)]) mkdirSync(dir, { recursive: true });
  symlinkSync(RECAP, join(binDir, 'recap'));
  const env = {
    ...base.env,
    PATH: [binDir, dirname(process.execPath), process.env.PATH].join(delimiter),
    RECAP_CONFIG: config,
    TMPDIR: tmp,
    XDG_CACHE_HOME: join(base.dir, 'xdg-cache'),
    XDG_STATE_HOME: join(base.dir, 'xdg-state'),
    NO_COLOR: '1',
  };
  return { ...base, config, env };
}

describe('opencode', () => {
  it('runs on this platform (the end-to-end tests below need it and fail, never skip, without it)', () => {
    expect(assertOpencodeRuns()).toBe('1.18.33');
  });
});

describe("the real opencode with recap's plugin", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let job: string;
  let launcher: string;
  let plugin: string;
  const runs: OpencodeResult[] = [];

  beforeAll(async () => {
    assertOpencodeRuns();
    box = opencodeBox();
    job = jobIdFor(box.project);
    launcher = join(box.data, 'bin', 'recap');
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'opencode', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    plugin = join(box.env.XDG_CONFIG_HOME!, 'opencode', 'plugins', 'recap.js');
    expect(JSON.parse(installed.stdout)).toEqual({ file: plugin, mode: 'plugin', changed: true });
    mock = await MockOpenAIChat.start();
    configureOpencode(box.env, mock);
  });

  afterAll(async () => {
    daemon?.child.kill('SIGCONT');
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    "counts the user's prompt and not its subagent's, and bash carries the session of the user's",
    async () => {
      mock.script(
        callTool('task', { description: 'look around', prompt: SUBAGENT_PROMPT, subagent_type: 'general' }),
        bash('env > sub-env.txt'),
        answer('Written.'),
        bash('env > env.txt'),
        answer('Listed.'),
      );
      const run = await runOpencode(box.project, box.env, SHORT_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken, ctx).toBe(5);
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
      expect(status, ctx).toMatchObject({ job, tripped: false, unsummarizedInteractions: 1 });
      const context = (await runCli(box, ['context'])).stdout;
      expect(context).not.toContain(SUBAGENT_PROMPT);

      const env = envFile(join(box.project, 'env.txt'));
      expect(env.OPENCODE).toBe('1');
      expect(env.OPENCODE_PID).toMatch(/^\d+$/);
      expect(env.RECAP_OPENCODE_SESSION_ID).toBe(run.session);
      // The subagent's bash names the session the user started: a submit there lands in its job.
      expect(envFile(join(box.project, 'sub-env.txt')).RECAP_OPENCODE_SESSION_ID).toBe(run.session);
    },
    TEST_MS,
  );

  it(
    'gates a session: the long prompt trips it, a bash call and a file write are denied, the named submit clears it, work goes on',
    async () => {
      expect(runs, 'the first session must have run').toHaveLength(1);
      const notes = join(box.project, 'notes.md');
      const at = mock.turnsTaken;
      let submitCommand = '';
      mock.script(
        bash('echo hi > denied.txt'),
        callTool('write', { filePath: notes, content: 'never written\n' }),
        (request) => {
          const reason = mock.lastToolResult(request)?.text ?? '';
          submitCommand = `${submitCommandIn(reason).split('\n')[0]}\n${SUMMARY}\nEOF`;
          return bash(submitCommand);
        },
        bash('echo ok > ran.txt'),
        answer('Done.'),
      );
      const before = mock.requests.length;
      const run = await runOpencode(box.project, box.env, LONG_PROMPT, mock);
      runs.push(run);
      const ctx = mock.describe();
      expect(mock.unexpected, ctx).toEqual([]);
      expect(mock.turnsTaken - at, ctx).toBe(5);

      // (1) The prompt was recorded and tripped the gate at once: the notice rode with the
      // user's message, and the system prompt held what to summarize, before any tool ran.
      const first = mock.requests.slice(before).find((r) => r.kind === 'turn')!;
      expect(first.raw).toContain(`recap: job ${job} needs a summary before any other tool can run`);
      expect(systemOf(first)).toContain(`recap: job ${job} needs a summary`);
      expect(systemOf(first)).toContain(PROMPT_SENTENCE.trim());

      // (2) The bash call and the file write were denied; the model read the reason whole.
      for (const index of [at, at + 1]) {
        const denied = mock.toolResult(index);
        expect(denied, ctx).toBeDefined();
        expect(denied!.text).toMatch(new RegExp(`^recap: job ${job} needs a summary before any other tool can run: \\d+ unsummarized tokens reached the threshold of 500`));
        expect(denied!.text).toContain('submit it with exactly this bash command');
        expect(denied!.text).toContain(`${launcher} submit <<'EOF'`);
        expect(denied!.text).toContain('## Current State');
      }
      expect(existsSync(join(box.project, 'denied.txt'))).toBe(false);
      expect(existsSync(notes)).toBe(false);

      // (3) The summary went in through bash, with the launcher the deny named: the gate is open.
      expect(submitCommand.startsWith(`${launcher} submit <<'EOF'\n`), submitCommand).toBe(true);
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
      expect(status, mock.toolResult(at + 2)?.text).toMatchObject({ job, tripped: false, summaries: 1, unsummarizedInteractions: 0 });
      expect((await runCli(box, ['chain', '--json'])).stdout).toContain(SUMMARY_PHRASE);

      // (4) The next tool call ran, and the model calls after the summary had the memory, not the gate.
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
      const last = mock.requests.filter((r) => r.kind === 'turn').at(-1)!;
      expect(systemOf(last)).toContain(SUMMARY_PHRASE);
      expect(systemOf(last)).not.toContain('needs a summary');
    },
    TEST_MS,
  );

  it(
    "hands a new session the summary in its system prompt, and not to opencode's title request",
    async () => {
      expect(runs, 'the sessions before must have run').toHaveLength(2);
      mock.script(answer('I have the summary.'));
      const before = mock.requests.length;
      const run = await runOpencode(box.project, box.env, 'What did we agree on so far?', mock);
      expect(run.session).not.toBe(runs[1]!.session);
      const requests = mock.requests.slice(before);
      const turn = requests.find((r) => r.kind === 'turn')!;
      const system = systemOf(turn);
      expect(system, mock.describe()).toContain(`recap: the memory of job ${job}: 1 summaries in its chain.`);
      expect(system).toContain(SUMMARY_PHRASE);
      expect(turn.raw).not.toContain(PROMPT_SENTENCE.trim());
      const title = requests.find((r) => r.kind === 'side');
      if (title !== undefined) expect(systemOf(title)).not.toContain(SUMMARY_PHRASE);
      runs.push(run);
    },
    TEST_MS,
  );

  it(
    'with the daemon stopped, the plugin hands over to recap-hook, which denies a tool call of the tripped job from the verdict file',
    async () => {
      const tripped = await runCli(box, ['trip', '--reason', 'end-to-end check']);
      expect(tripped.code, tripped.stderr).toBe(0);
      const at = mock.turnsTaken;
      mock.script(bash('echo x > stopped.txt'), answer('Blocked, as expected.'));
      daemon.child.kill('SIGSTOP');
      try {
        await runOpencode(box.project, box.env, 'Write the file now.', mock);
      } finally {
        daemon.child.kill('SIGCONT');
      }
      const denied = mock.toolResult(at);
      expect(denied?.text, mock.describe()).toContain('recap: the daemon is not answering');
      expect(denied!.text).toContain(`it last knew job ${job} as tripped (manual)`);
      expect(denied!.text).toContain(`${launcher} submit <<'EOF'`);
      expect(existsSync(join(box.project, 'stopped.txt'))).toBe(false);
    },
    TEST_MS,
  );

  it('doctor loads the plugin and says it runs; uninstall removes it and doctor says so', async () => {
    const doctor = await runCli(box, ['doctor']);
    expect(doctor.stdout).toMatch(/ok +opencode +\S*recap\.js loads and hands opencode its chat\.message, tool\.execute\.before/);
    const removed = await runCli(box, ['uninstall', 'opencode', '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({ files: [plugin] });
    expect(existsSync(plugin)).toBe(false);
    expect((await runCli(box, ['doctor'])).stdout).toContain('opencode is set up (');
  });
});

/** A stand-in for the daemon's socket: records each hook payload, answers every one with nothing (allow). */
async function recordingSocket(path: string): Promise<{ server: Server; payloads: Record<string, unknown>[] }> {
  const payloads: Record<string, unknown>[] = [];
  const server = createServer((socket) => {
    const reader = new FrameReader();
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) {
        if (frame.kind !== 'message') continue;
        const request = frame.value as { id: number; payload: Record<string, unknown> };
        payloads.push(request.payload);
        socket.write(encodeFrame({ id: request.id, result: { stdout: '', exitCode: 0 } }));
      }
    });
  });
  mkdirSync(dirname(path), { recursive: true });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, payloads };
}

describe("what recap's plugin sends from opencode's real hooks (test/fixtures/agents/opencode)", () => {
  it(
    'every payload has the keys of its fixture (RECAP_UPDATE_AGENT_FIXTURES=1 writes them anew)',
    async () => {
      const box = opencodeBox();
      const socket = join(box.dir, 'recorder', 'recapd.sock');
      const env = { ...box.env, RECAP_SOCKET: socket };
      const recorder = await recordingSocket(socket);
      const mock = await MockOpenAIChat.start();
      try {
        const installed = await runCli(box, ['install', 'opencode'], { env });
        expect(installed.code, installed.stderr).toBe(0);
        configureOpencode(env, mock);
        writeFileSync(join(box.project, 'README.md'), '# project\n');
        mock.script(
          bash('ls'),
          callTool('read', { filePath: join(box.project, 'README.md') }),
          callTool('write', { filePath: join(box.project, 'notes.md'), content: 'x\n' }),
          callTool('edit', { filePath: join(box.project, 'notes.md'), oldString: 'x', newString: 'y' }),
          callTool('glob', { pattern: '**/*.md' }),
          callTool('grep', { pattern: 'project', include: '*.md' }),
          callTool('task', { description: 'look', prompt: SUBAGENT_PROMPT, subagent_type: 'general' }),
          bash('true'),
          answer('Sub done.'),
          answer('Done.'),
        );
        await runOpencode(box.project, env, SHORT_PROMPT, mock);
        expect(mock.unexpected, mock.describe()).toEqual([]);
        const chosen = new Map<string, Record<string, unknown>>();
        for (const payload of recorder.payloads) {
          const event = payload.hook_event_name as string;
          const name = typeof payload.tool_name === 'string' ? `${event}-${payload.tool_name}` : payload.agent_id !== undefined ? `${event}-subagent` : event;
          if (!chosen.has(name)) chosen.set(name, payload);
        }
        expect([...chosen.keys()].sort()).toEqual(
          ['chat_message', 'chat_message-subagent', 'system_transform', ...['bash', 'read', 'write', 'edit', 'glob', 'grep', 'task'].map((t) => `tool_execute_before-${t}`)].sort(),
        );
        // The subagent's calls name the user's session and their own.
        const sub = [...recorder.payloads].reverse().find((p) => p.tool_name === 'bash' && p.agent_id !== undefined);
        expect(sub?.session_id).toBe(chosen.get('chat_message')!.session_id);
        const folder = join(FIXTURES, 'opencode');
        const dirs = { root: box.dir, project: box.project, home: box.dir, tmp: join(box.dir, 'tmp'), hooks: '' };
        for (const [name, payload] of chosen) {
          const file = join(folder, `${name}.json`);
          if (process.env.RECAP_UPDATE_AGENT_FIXTURES === '1') {
            mkdirSync(folder, { recursive: true });
            writeFileSync(file, fixtureText(payload, dirs));
          }
          expect(existsSync(file), `${file} is missing; RECAP_UPDATE_AGENT_FIXTURES=1 writes it`).toBe(true);
          expect(keyPaths(payload).sort(), name).toEqual(keyPaths(JSON.parse(readFileSync(file, 'utf8'))).sort());
        }
      } finally {
        await mock.close();
        recorder.server.close();
        rmSync(box.dir, { recursive: true, force: true });
      }
    },
    TEST_MS,
  );
});
