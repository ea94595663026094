// What the benchmark scripts share: the environment that puts recap in a temporary
// folder, and a daemon started there.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

/** recap's socket, data and config under `dir`; `extra` adds or overrides variables. */
export function benchEnv(dir, extra = {}) {
  return {
    ...process.env,
    RECAP_SOCKET: join(dir, 'run', 'recapd.sock'),
    RECAP_DATA_DIR: join(dir, 'data'),
    RECAP_CONFIG: join(dir, 'config.conf'),
    RECAP_LOG_LEVEL: 'info',
    ...extra,
  };
}

/**
 * Spawns `recap daemon` and resolves once it says it is ready; `nodeArgs` go to node. With
 * `stdout: 'pipe'` its standard output can be read (where V8's --trace-gc writes).
 */
export async function startDaemon(env, nodeArgs = [], { stdout = 'ignore' } = {}) {
  // As recap starts it (src/common/daemonStart.ts); `nodeArgs` and `env` come after, so they can override.
  const { DAEMON_ENVIRONMENT, DAEMON_NODE_FLAGS } = await import(join(ROOT, 'dist', 'common', 'daemonStart.js'));
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...nodeArgs, join(ROOT, 'bin', 'recap.js'), 'daemon'], {
    env: { ...DAEMON_ENVIRONMENT, ...env },
    stdio: ['ignore', stdout, 'pipe'],
  });
  await new Promise((ready, fail) => {
    let log = '';
    child.stderr.on('data', (chunk) => {
      log += chunk;
      if (log.includes('recap daemon ready')) ready();
    });
    child.once('exit', () => fail(new Error(`the daemon exited: ${log}`)));
  });
  return child;
}

/** SIGTERM, and wait for it to exit. */
export async function stopDaemon(child) {
  child.kill('SIGTERM');
  await new Promise((exited) => child.once('exit', exited));
}
