// The real Claude Code CLI for end-to-end tests: where its binary is, a probe that fails
// loudly (never skips) when it cannot run here, and one `claude -p` run against the
// scripted model, rejecting with everything known when it fails or hangs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';
import type { MockAnthropic } from './mockAnthropic.js';

export const CLAUDE = join(ROOT, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
const CLAUDE_RUN_MS = 90_000;

export function assertClaudeRuns(): string {
  if (!existsSync(CLAUDE)) throw new Error(`the Claude Code binary is missing at ${CLAUDE}; run npm install (it is a devDependency)`);
  const probe = spawnSync(CLAUDE, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  if (probe.error || probe.status !== 0 || !/Claude Code/.test(probe.stdout)) {
    throw new Error(
      `the Claude Code binary cannot run on this platform (${process.platform}/${process.arch}): ` +
        `${probe.error?.message ?? `exit ${probe.status}, signal ${probe.signal}`}\n${probe.stdout}\n${probe.stderr}`,
    );
  }
  return probe.stdout.trim();
}

export type ClaudeJson = {
  session_id: string;
  is_error: boolean;
  result?: string;
  num_turns?: number;
  permission_denials?: { tool_name: string; tool_use_id: string }[];
};
export type ClaudeResult = { code: number | null; stdout: string; stderr: string; json: ClaudeJson };

/** The environment that points Claude Code at the scripted model and keeps it offline. */
export function claudeEnv(env: NodeJS.ProcessEnv, mock: MockAnthropic): NodeJS.ProcessEnv {
  return {
    ...env,
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-any',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** `claude -p PROMPT --output-format json`, with `more` arguments (`--resume SESSION`). */
export function runClaude(cwd: string, env: NodeJS.ProcessEnv, prompt: string, mock: MockAnthropic, tools = 'Bash,Read', more: string[] = []): Promise<ClaudeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, ['-p', prompt, '--output-format', 'json', '--allowedTools', tools, ...more], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const explain = (what: string) => new Error(`${what}\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n--- requests the mock model received\n${mock.describe()}`);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(explain(`claude -p did not finish within ${CLAUDE_RUN_MS / 1000} s`));
    }, CLAUDE_RUN_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(explain(`claude could not start: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      let json: ClaudeJson;
      try {
        json = JSON.parse(stdout) as ClaudeJson;
      } catch {
        return reject(explain(`claude -p exited ${code} without a JSON result`));
      }
      if (code !== 0 || json.is_error) return reject(explain(`claude -p failed (exit ${code})`));
      resolve({ code, stdout, stderr, json });
    });
  });
}
