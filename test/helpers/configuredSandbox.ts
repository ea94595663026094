// A sandbox for the end-to-end tests, set up as a user's machine is: the user config a file in
// a folder of its own (recap protects a config file's folder when its name contains "recap",
// and the sandbox folder, recap-test-*, holds the project), and the commands the agent's shell
// runs by name in a bin folder first on PATH.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { sandbox, type Sandbox } from './daemon.js';

/**
 * A sandbox whose RECAP_CONFIG is `etc/config.conf`, holding `configText`; with `bins` (a name
 * and the file it links to, `{ recap: RECAP }`), a bin folder of those links, then Node's own,
 * ahead of PATH.
 */
export function configuredSandbox(configText: string, bins?: Record<string, string>): Sandbox {
  const base = sandbox();
  const config = join(base.dir, 'etc', 'config.conf');
  mkdirSync(dirname(config));
  writeFileSync(config, configText);
  const env: NodeJS.ProcessEnv = { ...base.env, RECAP_CONFIG: config };
  if (bins !== undefined) {
    const binDir = join(base.dir, 'bin');
    mkdirSync(binDir);
    for (const [name, target] of Object.entries(bins)) symlinkSync(target, join(binDir, name));
    env.PATH = [binDir, dirname(process.execPath), process.env.PATH].join(delimiter);
  }
  return { ...base, config, env };
}
