// A hook command run as an agent runs it: in the project, the payload on stdin, then its end;
// the installed launcher (handed this Node) or recap-hook alone, as the launcher falls back on it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, type Sandbox } from './daemon.js';

const HANG_LIMIT_MS = 15_000;

export type HookCommandRun = { code: number | null; stdout: string; stderr: string };

/** The two commands an agent's hook runs: the launcher every install writes, and recap-hook. */
export function hookCommands(agent: string): Record<'launcher' | 'recap-hook', string[]> {
  return {
    launcher: ['/bin/sh', join(ROOT, 'bin', 'recap-hook.sh'), process.execPath, agent],
    'recap-hook': [process.execPath, join(ROOT, 'bin', 'recap-hook.cjs'), agent],
  };
}

/** Runs one hook command; a command that outlives HANG_LIMIT_MS is killed and fails the test. */
export function runHookCommand(box: Sandbox, args: string[], payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookCommandRun> {
  return new Promise((done, fail) => {
    const child = spawn(args[0]!, args.slice(1), { cwd: box.project, env: { ...box.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${args.join(' ')} hung\n${stderr}`));
    }, HANG_LIMIT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(JSON.stringify(payload));
  });
}
