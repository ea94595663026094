// The real Gemini CLI (test/agents) for end-to-end tests: where it is, a probe that fails
// loudly (never skips), a home that points it at the scripted model, hooks as a hand-written
// extension, and one headless `gemini -p` run with a deadline.
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

export type GeminiResult = AgentRun & { events: Record<string, unknown>[] };

/** `gemini -p PROMPT --approval-mode yolo -o stream-json`. */
export async function runGemini(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockGemini): Promise<GeminiResult> {
  const args = ['-p', prompt, '-m', GEMINI_MODEL, '--approval-mode', 'yolo', '-o', 'stream-json'];
  const run = await runAgent('gemini -p', GEMINI, args, cwd, env, () => mock.describe(), GEMINI_RUN_MS);
  return { ...run, events: jsonLines(run.stdout) };
}
