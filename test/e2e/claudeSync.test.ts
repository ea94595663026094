// End to end: memory that follows the repository to another machine. Two machines, each a
// real daemon with its own data folder and its own clone of one bare repository on disk (the
// project's remote), SYNC=team. Machine A accepts a summary through the CLI and pushes it on
// its own; on machine B nobody runs recap sync: the real Claude Code starts a session in B's
// clone, its SessionStart hook makes B's daemon fetch A's chain, and the scripted model's first
// request holds A's summary, labelled with its author. Then the remote stops answering, and
// a new session on B still starts, within SYNC_START_WAIT, with the memory B already had.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertClaudeRuns, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { configuredSandbox } from '../helpers/configuredSandbox.js';
import { RECAP, removeSandbox, runCli, startDaemon, type CliResult, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD } from '../helpers/gateAttack.js';
import { answer, MockAnthropic, type RecordedRequest } from '../helpers/mockAnthropic.js';
import { notes, prose } from '../helpers/text.js';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import { expectIn, stringsOf } from '../helpers/requestText.js';

const TEST_MS = 120_000;
// B waits longer than the default 1500 ms for the fetch at a session's start (slack for a busy
// CI machine): the most SYNC_START_WAIT allows, which the hook's deadline still leaves room for.
const START_WAIT_MS = 2000;
const CONFIG_A = `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\nSYNC=team\n`;
const CONFIG_B = `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\nSYNC=team\nSYNC_START_WAIT=${START_WAIT_MS}\n`;

const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';
const MARKER = 'The heron checkpoint of the quartz ledger was signed off on the laptop before lunch.';
const GIST = 'the quartz ledger checkpoint and the config parser error reports';
/** A's summary: the default sections (its words grounded in the prompts recorded), the marker in the last. */
const SUMMARY = [`Gist: ${GIST}`, ...DEFAULT_SECTIONS.map((s, i) => `## ${s}\n${notes(3, i * 3)}${i === DEFAULT_SECTIONS.length - 1 ? ` ${MARKER}` : ''}`)].join('\n\n');

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A bare remote with one commit on main, in `dir`. */
function remoteRepo(dir: string): string {
  const remote = join(dir, 'remote.git');
  git(dir, 'init', '--bare', '--quiet', remote);
  const seed = join(dir, 'seed');
  git(dir, 'init', '--quiet', seed);
  git(seed, 'commit', '--quiet', '--allow-empty', '-m', 'the first commit');
  git(seed, 'push', '--quiet', remote, 'HEAD:main');
  return remote;
}

type Machine = { box: Sandbox; clone: string; daemon: DaemonProcess; cli: (args: string[], input?: string) => Promise<CliResult> };

/** A sandbox of a machine: its config, and recap on PATH as a user's install puts it. */
const machineBox = (config: string): Sandbox => configuredSandbox(config, { recap: RECAP });

/** A machine: its daemon named `host`, and a clone of `remote` whose git author is `email`. */
async function machine(box: Sandbox, remote: string, host: string, email: string): Promise<Machine> {
  const clone = join(box.dir, `clone-${host}`);
  git(box.dir, 'clone', '--quiet', remote, clone);
  git(clone, 'config', 'user.email', email);
  const daemon = await startDaemon(box, { RECAP_HOST_NAME: host });
  return { box, clone, daemon, cli: (args, input) => runCli(box, args, { cwd: clone, ...(input !== undefined ? { input } : {}) }) };
}

/** What a session's first request to the model showed it. */
function firstRequestOf(mock: MockAnthropic, session: string): string {
  const request = mock.turnRequests.find((r) => r.session === session);
  expect(request, mock.describe()).toBeDefined();
  return stringsOf(request!.body);
}

/** The memory of A's summary as B hands it over: A's text under a heading naming its author and host. */
function expectAliceMemory(request: string): void {
  const at = request.indexOf('recap: the memory of job ');
  expect(at, `the session's first request should hold recap's memory\n${request.slice(0, 8000)}`).toBeGreaterThanOrEqual(0);
  const memory = request.slice(at);
  expectIn(memory, "0 in this machine's chain, 1 from other machines' chains", 'the memory');
  expectIn(memory, `from ${ALICE}'s chain on laptop`, 'the memory');
  expectIn(memory, MARKER, 'the memory');
}

describe("the real Claude Code on machine B starts with the memory written on machine A, through the project's git remote", () => {
  let a: Machine;
  let b: Machine;
  let mock: MockAnthropic;
  let env: NodeJS.ProcessEnv;
  let imported = false;

  beforeAll(async () => {
    assertClaudeRuns();
    const boxA = machineBox(CONFIG_A);
    const remote = remoteRepo(boxA.dir);
    a = await machine(boxA, remote, 'laptop', ALICE);
    b = await machine(machineBox(CONFIG_B), remote, 'devbox', BOB);
    const installed = await runCli(b.box, ['install', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    mock = await MockAnthropic.start();
    env = claudeEnv(b.box.env, mock);
  });

  afterAll(async () => {
    await mock?.close();
    for (const m of [a, b]) {
      await m?.daemon.stop();
      if (m) removeSandbox(m.box);
    }
  });

  it(
    "hands B's first session A's summary, labelled with A's author, fetched at its start with no recap sync run on B",
    async () => {
      for (const text of [prose(8), prose(8)]) expect((await a.cli(['record', '--kind', 'prompt', '--text', text])).code).toBe(0);
      const submitted = await a.cli(['submit'], SUMMARY);
      expect(submitted.code, submitted.stderr).toBe(0);
      // SYNC_PUSH=auto (the default): A's daemon pushes its chain on its own once the summary is accepted.
      await a.daemon.waitForLog((l) => l.msg === 'recap sync finished' && (l.pushed as { unchanged?: boolean } | undefined)?.unchanged === false);

      mock.script(answer('I have the memory.'));
      const run = await runClaude(b.clone, env, 'What was decided so far?', mock);
      expectAliceMemory(firstRequestOf(mock, run.json.session_id));

      const log = await b.cli(['log', '--type', 'SummaryImported', '--json']);
      expect(log.code, log.stderr).toBe(0);
      const imports = log.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: { entry: { text: string }; origin: { host: string; author?: string } } });
      expect(imports).toEqual([
        expect.objectContaining({
          type: 'SummaryImported',
          data: expect.objectContaining({
            entry: expect.objectContaining({ text: expect.stringContaining(MARKER) }),
            origin: expect.objectContaining({ host: 'laptop', author: ALICE }),
          }),
        }),
      ]);
      const verified = await b.cli(['verify']);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      imported = true;
    },
    TEST_MS,
  );

  it(
    'starts a session on B within SYNC_START_WAIT while the remote never answers, with the memory B already had',
    async () => {
      expect(imported, "A's summary must have reached B first").toBe(true);
      const stalled: Socket[] = [];
      const server: Server = createServer((socket) => stalled.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = git(b.clone, 'remote', 'get-url', 'origin').trim();
      try {
        git(b.clone, 'remote', 'set-url', 'origin', `git://127.0.0.1:${(server.address() as { port: number }).port}/never.git`);
        // When the model's first request arrives: whether B's fetch reached the remote and is still held by it.
        let heldAtFirstRequest: boolean | undefined;
        mock.script((_request: RecordedRequest) => {
          heldAtFirstRequest = stalled.length > 0 && stalled.every((s) => !s.destroyed);
          return answer('I have the memory.');
        });
        const run = await runClaude(b.clone, env, 'Where do we stand?', mock);
        expect(heldAtFirstRequest, 'the fetch reached the remote and was still waiting on it when the session went on').toBe(true);
        expectAliceMemory(firstRequestOf(mock, run.json.session_id));
      } finally {
        for (const socket of stalled) socket.destroy();
        server.close();
        git(b.clone, 'remote', 'set-url', 'origin', origin);
      }
    },
    TEST_MS,
  );
});
