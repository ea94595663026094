// The real Qwen Code CLI (test/agents) for end-to-end tests: where it is, a probe that fails
// loudly (never skips), an environment that points it at the scripted model, user hooks in
// ~/.qwen/settings.json, and one headless `qwen -p` run with a deadline. Qwen Code asks for
// Node 22 but its `-p` flow and hooks work on Node 20: it runs here on the tests' own Node.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, assertAgentRuns, bareEnv, jsonLines, runAgent, type AgentDirs, type AgentRun } from './agentSandbox.js';
import type { MockOpenAIChat } from './mockOpenAIChat.js';

export const QWEN = join(AGENTS_DIR, 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js');
const QWEN_RUN_MS = 90_000;

export function assertQwenRuns(): string {
  return assertAgentRuns('the Qwen Code CLI', QWEN, /^0\.24\.4$/m);
}

/** The environment that points Qwen Code at the mock (no settings needed for that). */
export function qwenEnv(dirs: AgentDirs, mock: MockOpenAIChat): NodeJS.ProcessEnv {
  return {
    ...bareEnv(dirs),
    OPENAI_API_KEY: 'test-key-any',
    OPENAI_BASE_URL: mock.url,
    OPENAI_MODEL: 'mock-model',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  };
}

export type QwenHooks = Record<string, { matcher?: string; hooks: { type: 'command'; name: string; command: string; timeout: number }[] }[]>;

/** User hooks in ~/.qwen/settings.json: they load whatever the folder's trust. */
export function installQwenHooks(dirs: AgentDirs, hooks: QwenHooks): string {
  const file = join(dirs.home, '.qwen', 'settings.json');
  mkdirSync(join(dirs.home, '.qwen'), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ privacy: { usageStatisticsEnabled: false }, hooks }, null, 2)}\n`);
  return file;
}

export type QwenResult = AgentRun & { events: Record<string, unknown>[] };

/** `qwen -p PROMPT --approval-mode yolo -o stream-json`, and `more` switches (`--resume ID`). */
export async function runQwen(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockOpenAIChat, more: string[] = []): Promise<QwenResult> {
  const args = ['-p', prompt, '--approval-mode', 'yolo', '-o', 'stream-json', ...more];
  const run = await runAgent('qwen -p', QWEN, args, cwd, env, () => mock.describe(), QWEN_RUN_MS);
  return { ...run, events: jsonLines(run.stdout) };
}
