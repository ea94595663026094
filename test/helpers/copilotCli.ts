// The real GitHub Copilot CLI (test/agents) for end-to-end tests: where it is, a probe that
// fails loudly (never skips), an environment that points it at the scripted model offline,
// and one headless `copilot -p` run with a deadline. Its loader unpacks a native binary
// (~235 MB) into $XDG_CACHE_HOME/copilot on first start: every run shares the cache the
// probe fills (HOME=tmpdir() there), so it is unpacked once per machine.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS_DIR, assertAgentRuns, jsonLines, runAgent, type AgentRun } from './agentSandbox.js';
import { callTool, type MockOpenAIChat } from './mockOpenAIChat.js';
import type { Turn } from './scriptedModel.js';

export const COPILOT = join(AGENTS_DIR, 'node_modules', '@github', 'copilot', 'npm-loader.js');
/** The cache the probe's `HOME=tmpdir()` fills: shared by every run. */
export const COPILOT_CACHE = join(tmpdir(), '.cache');
const COPILOT_RUN_MS = 90_000;

export function assertCopilotRuns(): string {
  return assertAgentRuns('the GitHub Copilot CLI', COPILOT, /^GitHub Copilot CLI 1\.0\.102\.$/m).split('\n')[0]!;
}

/** The environment that runs Copilot CLI offline against the mock, on top of `env` (HOME and recap's variables). */
export function copilotEnv(env: NodeJS.ProcessEnv, mock: MockOpenAIChat): NodeJS.ProcessEnv {
  return {
    ...env,
    XDG_CACHE_HOME: COPILOT_CACHE,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: mock.url,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'test-key-any',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
    NO_COLOR: '1',
  };
}

/** The bash tool as the model calls it. */
export const bash = (command: string): Turn => callTool('bash', { command, description: 'Run a command' });

export type CopilotResult = AgentRun & { events: Record<string, unknown>[]; session: string };

/**
 * `copilot -p PROMPT --allow-all-tools --allow-all-paths --output-format json`: Copilot CLI's
 * own permission rules never ask, so a deny is recap's. Without --allow-all-paths a `-p` run
 * denies the way out itself: recap's launcher is outside the project, and nobody is there to approve it.
 */
export async function runCopilot(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockOpenAIChat): Promise<CopilotResult> {
  const args = ['-p', prompt, '--allow-all-tools', '--allow-all-paths', '--no-auto-update', '--output-format', 'json'];
  const run = await runAgent('copilot -p', COPILOT, args, cwd, env, () => mock.describe(), COPILOT_RUN_MS);
  const events = jsonLines(run.stdout);
  const session = events.find((e) => e.type === 'result' && typeof e.sessionId === 'string')?.sessionId as string;
  return { ...run, events, session };
}
