// What running any of the test-only agent CLIs (test/agents) needs: a temporary folder with
// a project, a home and a TMPDIR of its own, a bare environment that points only there, and
// one non-interactive run with a deadline that rejects with everything known when it fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
/** The test-only package that holds the agents (its own package.json and lock). */
export const AGENTS_DIR = join(ROOT, 'test', 'agents');
export const INSTALL_HINT = 'run `npm run install-test-agents` (node scripts/install-test-agents.mjs), which installs test/agents from its lock';

export type AgentDirs = { root: string; project: string; home: string; tmp: string; hooks: string };

/** A fresh folder for one agent's runs; real paths, since agents report their cwd resolved. */
export function agentSandbox(agent: string): AgentDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `recap-${agent}-`)));
  const dirs = { root, project: join(root, 'project'), home: join(root, 'home'), tmp: join(root, 'tmp'), hooks: join(root, 'hooks') };
  for (const dir of [dirs.project, dirs.home, dirs.tmp, dirs.hooks]) mkdirSync(dir);
  return dirs;
}

export function removeAgentSandbox(dirs: AgentDirs | undefined): void {
  if (dirs) rmSync(dirs.root, { recursive: true, force: true });
}

/**
 * Nothing from the developer's environment but PATH (agents run bash, python3, node): no API
 * keys, proxies or config folders leak in, and every folder an agent writes is the sandbox's.
 */
export function bareEnv(dirs: AgentDirs): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
}

/** Throws, with the fix, unless `file` exists and `node file --version` prints `version`. */
export function assertAgentRuns(name: string, file: string, version: RegExp): string {
  if (!existsSync(file)) throw new Error(`${name} is missing at ${file}; ${INSTALL_HINT}`);
  const probe = spawnSync(process.execPath, [file, '--version'], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, HOME: tmpdir() } });
  if (probe.error || probe.status !== 0 || !version.test(probe.stdout)) {
    throw new Error(
      `${name} does not run on ${process.platform}/${process.arch} with Node ${process.version}: ` +
        `${probe.error?.message ?? `exit ${probe.status}, signal ${probe.signal}`}\n${probe.stdout}\n${probe.stderr}\n(${INSTALL_HINT})`,
    );
  }
  return probe.stdout.trim();
}

export type AgentRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `node script ...args` in `cwd` with stdin at /dev/null, in a process group of its own
 * so a deadline kills the agent's children too (Gemini CLI relaunches itself, Codex's
 * launcher spawns the native binary). Rejects on a non-zero exit, a hang or a failed start,
 * with the output and what the mock model received.
 */
export function runAgent(what: string, script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, describe: () => string, deadlineMs: number): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const explain = (why: string) => new Error(`${what} ${why}\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n--- requests the mock model received\n${describe()}`);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(explain(`did not finish within ${deadlineMs / 1000} s`));
    }, deadlineMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(explain(`could not start: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(explain(`failed (exit ${code})`));
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON objects of a JSON-lines output; other lines (warnings) are left out. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
