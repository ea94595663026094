// What the real Codex makes of the hooks and trust entries in a CODEX_HOME: `codex
// app-server`'s `hooks/list`, which gives each handler's key, the hash Codex computes for it
// now, and whether the user's config.toml trusts it. Tests check recap's installer against
// Codex's own judgement with it, not against recap's copy of the hash.
import { spawn } from 'node:child_process';
import { CODEX } from './codexCli.js';

export type ListedHook = {
  key: string;
  eventName: string;
  command: string;
  matcher: string | null;
  timeoutSec: number;
  additionalContextLimit: number | null;
  sourcePath: string;
  enabled: boolean;
  currentHash: string;
  trustStatus: 'trusted' | 'untrusted' | 'modified' | string;
};

const LIST_MS = 30_000;

/** Every hook Codex finds for `cwd` with this environment (HOME, CODEX_HOME), in Codex's order. */
export function codexHooksList(env: NodeJS.ProcessEnv, cwd: string): Promise<{ hooks: ListedHook[]; warnings: string[]; errors: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CODEX, 'app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`codex app-server gave no hooks/list answer within ${LIST_MS / 1000} s\n${out}\n${err}`));
    }, LIST_MS);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{"id":2,')) continue;
        clearTimeout(timer);
        stop();
        const message = JSON.parse(line) as { result?: { data: { hooks: ListedHook[]; warnings: string[]; errors: unknown[] }[] }; error?: unknown };
        if (message.result === undefined) return reject(new Error(`hooks/list failed: ${line}`));
        return resolve(message.result.data[0]!);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'recap-test', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
  });
}
