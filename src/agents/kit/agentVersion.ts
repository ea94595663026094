// The installed agent's version, for the doctors and installers that warn of an old one.
import { execFileSync } from 'node:child_process';

/** `<bin> --version`'s x.y.z, or undefined when the agent is not installed, not on PATH, or does not answer in `timeout` ms. */
export function agentVersion(bin: string, env: NodeJS.ProcessEnv, timeout: number): string | undefined {
  try {
    const out = execFileSync(bin, ['--version'], { env, encoding: 'utf8', timeout, stdio: ['ignore', 'pipe', 'ignore'] });
    return /\d+\.\d+\.\d+/.exec(out)?.[0];
  } catch {
    // Not installed, not on PATH, or not answering: recap's hooks are written all the same.
    return undefined;
  }
}

/** Below 0 when `version` is older than `than`, 0 when the same, above 0 when newer (x.y.z, a missing part 0). */
export function compareVersions(version: string, than: string): number {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  const [x = 0, y = 0, z = 0] = than.split('.').map(Number);
  return a !== x ? a - x : b !== y ? b - y : c - z;
}
