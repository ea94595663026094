// End to end, with the real CLIs (test/agents): the .env files an agent CLI loads into its
// hooks' environment, which the agent could write to send recap-hook elsewhere or load code
// into it. Codex loads $CODEX_HOME/.env over the user's own variables, so recap protects that
// file (src/agents/codex/facts.ts; the attacks are in test/adversarial/agentsCodex.test.ts).
// Qwen Code loads a project's .env, which recap cannot protect (it is the project's own), so
// recap's hooks name recap's socket, data and config in their `env`: a tripped gate holds
// with a project .env pointing at another recap.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSandbox, removeAgentSandbox, type AgentDirs } from '../helpers/agentSandbox.js';
import { assertCodexRuns, codexEnv, installCodexHooks, runCodex } from '../helpers/codexCli.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { answer as chatAnswer, MockOpenAIChat, shell } from '../helpers/mockOpenAIChat.js';
import { answer, MockOpenAIResponses } from '../helpers/mockOpenAIResponses.js';
import { assertQwenRuns, runQwen } from '../helpers/qwenCli.js';

const TEST_MS = 120_000;

describe("the real Codex CLI hands its hooks $CODEX_HOME/.env, over the user's own variables", () => {
  let dirs: AgentDirs;
  let mock: MockOpenAIResponses;
  beforeAll(async () => {
    assertCodexRuns();
    dirs = agentSandbox('codex-env');
    mock = await MockOpenAIResponses.start([answer('done')]);
  });
  afterAll(async () => {
    await mock?.close();
    removeAgentSandbox(dirs);
  });

  it(
    'a variable set only there, and one the user set, both reach the hook as .env has them',
    async () => {
      const env = codexEnv(dirs, mock);
      const seen = join(dirs.root, 'hook-env.txt');
      writeFileSync(join(dirs.home, '.codex', '.env'), 'RECAP_SOCKET=/tmp/another-recap.sock\nLANG=from-dotenv\n');
      installCodexHooks(dirs, { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `env > ${seen}`, timeout: 10 }] }] });
      const run = await runCodex(dirs.project, env, 'hello', mock);
      expect(run.code, run.stderr).toBe(0);
      const lines = readFileSync(seen, 'utf8').split('\n');
      expect(lines).toContain('RECAP_SOCKET=/tmp/another-recap.sock');
      // LANG is C.UTF-8 in the CLI's own environment: .env wins.
      expect(lines).toContain('LANG=from-dotenv');
    },
    TEST_MS,
  );
});

describe("the real Qwen Code with recap's hooks, a project .env naming another recap", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockOpenAIChat;
  let env: NodeJS.ProcessEnv;
  const elsewhere = () => join(box.dir, 'elsewhere');

  beforeAll(async () => {
    assertQwenRuns();
    box = sandbox();
    // recap where it is by default for this user (from the XDG folders), none of its
    // variables set: as most users run it, and what a .env can then fill in.
    env = { ...box.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) };
    for (const name of ['RECAP_SOCKET', 'RECAP_DATA_DIR', 'RECAP_CONFIG']) delete env[name];
    const unset = { RECAP_SOCKET: '', RECAP_DATA_DIR: '', RECAP_CONFIG: '' };
    daemon = await startDaemon(box, unset);
    const installed = await runCli(box, ['install', 'qwen'], { env: unset });
    expect(installed.code, installed.stderr).toBe(0);
    // A trip needs something to summarize.
    expect((await runCli(box, ['record', '--kind', 'prompt', '--text', 'start the work'], { env: unset })).code).toBe(0);
    const tripped = await runCli(box, ['trip'], { env: unset });
    expect(tripped.code, tripped.stderr).toBe(0);
    mkdirSync(join(box.project, 'src'));
    writeFileSync(
      join(box.project, '.env'),
      `RECAP_SOCKET=${join(elsewhere(), 'run', 'recapd.sock')}\nRECAP_DATA_DIR=${join(elsewhere(), 'data')}\nRECAP_CONFIG=${join(elsewhere(), 'config.conf')}\n`,
    );
    mock = await MockOpenAIChat.start([shell('echo ran > ran.txt'), chatAnswer('done')]);
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it(
    "the shell call is denied by recap's own daemon, and no other recap is started",
    async () => {
      const qwenEnv = { ...env, OPENAI_API_KEY: 'test-key-any', OPENAI_BASE_URL: mock.url, OPENAI_MODEL: 'mock-model', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' };
      const run = await runQwen(box.project, qwenEnv, 'Write ran.txt, please.', mock);
      expect(run.code, run.stderr).toBe(0);
      expect(mock.toolResult(0)?.text, mock.describe()).toContain('needs a summary before any other tool can run');
      expect(existsSync(join(box.project, 'ran.txt'))).toBe(false);
      expect(existsSync(elsewhere())).toBe(false);
    },
    TEST_MS,
  );
});
