// The real Gemini CLI (test/agents) for end-to-end tests: where it is, a probe that fails
// loudly (never skips), a home that points it at the scripted model, hooks as a hand-written
// extension, one headless `gemini -p` run with a deadline, and an interactive one in a terminal.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, assertAgentRuns, bareEnv, jsonLines, runAgent, type AgentDirs, type AgentRun } from './agentSandbox.js';
import type { MockGemini } from './mockGemini.js';

export const GEMINI = join(AGENTS_DIR, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
const GEMINI_RUN_MS = 90_000;
export const GEMINI_MODEL = 'gemini-2.5-flash';

export function assertGeminiRuns(): string {
  return assertAgentRuns('the Gemini CLI', GEMINI, /^0\.61\.0$/m);
}

/** Writes ~/.gemini/settings.json for the mock and returns the environment that uses it. */
export function geminiEnv(dirs: AgentDirs, mock: MockGemini): NodeJS.ProcessEnv {
  mkdirSync(join(dirs.home, '.gemini'), { recursive: true });
  // API-key auth: without it GOOGLE_GEMINI_BASE_URL selects gateway auth and the CLI stops.
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } };
  writeFileSync(join(dirs.home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return {
    ...bareEnv(dirs),
    GEMINI_API_KEY: 'test-key-any',
    GOOGLE_GEMINI_BASE_URL: mock.url,
    // Headless runs in a folder with no trust decision exit 55 without it.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
}

export type GeminiHooks = Record<string, { matcher?: string; hooks: { type: 'command'; name: string; command: string; timeout: number }[] }[]>;

/**
 * Hooks as an extension written by hand in ~/.gemini/extensions/<name>: it loads with no CLI
 * step, and its hooks run whatever the folder's trust (settings hooks do not in an untrusted one).
 */
export function installGeminiExtension(dirs: AgentDirs, hooks: GeminiHooks, name = 'recap'): string {
  const folder = join(dirs.home, '.gemini', 'extensions', name);
  mkdirSync(join(folder, 'hooks'), { recursive: true });
  writeFileSync(join(folder, 'gemini-extension.json'), `${JSON.stringify({ name, version: '0.0.0' }, null, 2)}\n`);
  writeFileSync(join(folder, 'hooks', 'hooks.json'), `${JSON.stringify({ hooks }, null, 2)}\n`);
  return folder;
}

/** A terminal's escape sequences: ESC [ parameters, a letter. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[a-zA-Z]`, 'g');

export type GeminiResult = AgentRun & { events: Record<string, unknown>[] };

/**
 * `gemini -i PROMPT` in a terminal of its own (util-linux `script`): the interactive CLI, the
 * only way to run it in a folder that is not trusted (`-p` exits 55 there). It never ends by
 * itself: `until` says when the test has seen enough, then the whole process group is killed.
 * Resolves with what the terminal showed, ANSI codes removed.
 */
export async function runGeminiInteractive(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockGemini, until: Promise<unknown>): Promise<string> {
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, GEMINI, '-i', prompt, '-m', GEMINI_MODEL].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const clean = () => screen.replace(ANSI, '');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), GEMINI_RUN_MS)));
  const outcome = await Promise.race([until.then(() => 'done' as const), exited.then(() => 'exited' as const), late]);
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await exited;
  if (outcome !== 'done')
    throw new Error(
      `gemini -i ${outcome === 'late' ? `did not get there within ${GEMINI_RUN_MS / 1000} s` : 'exited first'}\n--- screen\n${clean().slice(-4000)}\n--- requests\n${mock.describe()}`,
    );
  return clean();
}

/** `gemini -p PROMPT --approval-mode yolo -o stream-json`. */
export async function runGemini(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockGemini): Promise<GeminiResult> {
  const args = ['-p', prompt, '-m', GEMINI_MODEL, '--approval-mode', 'yolo', '-o', 'stream-json'];
  const run = await runAgent('gemini -p', GEMINI, args, cwd, env, () => mock.describe(), GEMINI_RUN_MS);
  return { ...run, events: jsonLines(run.stdout) };
}
