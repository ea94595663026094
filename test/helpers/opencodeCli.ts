// The real opencode (test/agents: its platform package's compiled binary) for end-to-end
// tests: where it is, a probe that fails loudly (never skips), a home whose config points it
// at the scripted model, and one `opencode run` with a deadline. opencode installs its plugin
// package into every config folder at start (about 70 s offline) unless the folder already
// has a node_modules and a lock naming it: each config folder gets both.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, INSTALL_HINT, jsonLines, type AgentRun } from './agentSandbox.js';
import type { MockOpenAIChat } from './mockOpenAIChat.js';

export const OPENCODE = join(AGENTS_DIR, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
const RUN_MS = 120_000;

export function assertOpencodeRuns(): string {
  if (!existsSync(OPENCODE)) throw new Error(`opencode is missing at ${OPENCODE}; ${INSTALL_HINT}`);
  const probe = spawnSync(OPENCODE, ['--version'], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  if (probe.error || probe.status !== 0) throw new Error(`opencode does not run: ${probe.error?.message ?? `exit ${probe.status}`}\n${probe.stdout}\n${probe.stderr}`);
  return probe.stdout.trim();
}

/** A config folder opencode will not install its plugin package into. */
export function skipPackageInstall(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }));
}

/** The global config ($XDG_CONFIG_HOME/opencode) with the mock as its only provider and model; returns the folder. */
export function configureOpencode(env: NodeJS.ProcessEnv, mock: MockOpenAIChat): string {
  const dir = join(env.XDG_CONFIG_HOME!, 'opencode');
  mkdirSync(dir, { recursive: true });
  const provider = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Mock',
    options: { baseURL: mock.url, apiKey: 'x' },
    models: { 'mock-model': { name: 'Mock', tool_call: true, limit: { context: 100_000, output: 4096 } } },
  };
  const config = { provider: { mock: provider }, model: 'mock/mock-model', small_model: 'mock/mock-model', autoupdate: false, share: 'disabled' };
  writeFileSync(join(dir, 'opencode.json'), `${JSON.stringify(config, null, 2)}\n`);
  skipPackageInstall(dir);
  return dir;
}

export type OpencodeResult = AgentRun & { events: Record<string, unknown>[]; session: string | undefined };

/**
 * `opencode run --format json PROMPT` in `cwd`, stdin at /dev/null (run waits for EOF on a
 * stdin that is not a terminal), in a process group of its own so a deadline kills it whole.
 * The prompt is one argument: run quotes an argument holding a space, as the model then sees.
 */
export function runOpencode(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockOpenAIChat, args: string[] = []): Promise<OpencodeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(OPENCODE, ['run', '--format', 'json', ...args, prompt], {
      cwd,
      env: { OPENCODE_DISABLE_MODELS_FETCH: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const explain = (why: string) => new Error(`opencode run ${why}\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n--- requests the mock model received\n${mock.describe()}`);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(explain(`did not finish within ${RUN_MS / 1000} s`));
    }, RUN_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(explain(`could not start: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(explain(`failed (exit ${code})`));
      const events = jsonLines(stdout);
      const session = events.find((e) => typeof e.sessionID === 'string')?.sessionID as string | undefined;
      resolve({ code, stdout, stderr, events, session });
    });
  });
}
