// The real Codex CLI (test/agents) for end-to-end tests: where it is, a probe that fails
// loudly (never skips) when it cannot run, a CODEX_HOME that points it at the scripted model,
// user hooks with their trust entries, and one `codex exec` turn with a deadline.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, assertAgentRuns, bareEnv, jsonLines, runAgent, type AgentDirs, type AgentRun } from './agentSandbox.js';
import { codexTrustToml, type CodexHooks } from './codexTrust.js';
import type { MockOpenAIResponses } from './mockOpenAIResponses.js';

/** The npm launcher, as a user's `codex` runs it: it starts the native binary of @openai/codex-linux-x64. */
export const CODEX = join(AGENTS_DIR, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
const CODEX_RUN_MS = 90_000;
/**
 * The sandbox a user gets in a trusted project: workspace-write (the project, /tmp and
 * $TMPDIR writable, no network, no Unix sockets). `codex exec` never asks for approval, and
 * without this flag (or a trusted project) it runs read-only.
 */
export const WORKSPACE_WRITE = ['--sandbox', 'workspace-write'];

export function assertCodexRuns(): string {
  return assertAgentRuns('the Codex CLI', CODEX, /^codex-cli 0\.169\.0$/m);
}

export const codexHome = (dirs: AgentDirs): string => join(dirs.home, '.codex');

/** Writes $CODEX_HOME/config.toml for the mock and returns the environment that uses it. */
export function codexEnv(dirs: AgentDirs, mock: MockOpenAIResponses): NodeJS.ProcessEnv {
  const home = codexHome(dirs);
  mkdirSync(home, { recursive: true });
  // gpt-5.5: Codex offers apply_patch only to models it knows. Plugins off: they fetch from the network.
  writeFileSync(
    join(home, 'config.toml'),
    `model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = ${JSON.stringify(mock.url)}
wire_api = "responses"

[features]
plugins = false
`,
  );
  return { ...bareEnv(dirs), CODEX_HOME: home };
}

/**
 * Writes $CODEX_HOME/hooks.json and, unless `trust` is false, the config.toml entries that
 * trust each handler: without them `codex exec` skips the hooks silently.
 */
export function installCodexHooks(dirs: AgentDirs, hooks: CodexHooks, trust = true): string {
  const file = join(codexHome(dirs), 'hooks.json');
  writeFileSync(file, `${JSON.stringify({ hooks }, null, 2)}\n`);
  if (trust) appendFileSync(join(codexHome(dirs), 'config.toml'), `\n${codexTrustToml(file, hooks)}`);
  return file;
}

export type CodexResult = AgentRun & { events: Record<string, unknown>[] };

/** `codex exec --json` for one prompt, stdin at /dev/null. */
export async function runCodex(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockOpenAIResponses, args = WORKSPACE_WRITE): Promise<CodexResult> {
  const run = await runAgent('codex exec', CODEX, ['exec', '--skip-git-repo-check', '--json', ...args, '--', prompt], cwd, env, () => mock.describe(), CODEX_RUN_MS);
  return { ...run, events: jsonLines(run.stdout) };
}
