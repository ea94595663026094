// `recap install systemd`: recap's user units, with this installation's paths, where
// `systemctl --user` finds them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECAP_BIN } from '../common/bins.js';

const UNITS = resolve(fileURLToPath(new URL('../../systemd', import.meta.url)));

export function systemdUserDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), '.config'), 'systemd', 'user');
}

/** The units as shipped, with ExecStart pointing at this Node and this recap. */
export function renderUnits(): { 'recap.service': string; 'recap.socket': string } {
  const quote = (p: string) => (/\s/.test(p) ? `"${p}"` : p);
  const service = readFileSync(join(UNITS, 'recap.service'), 'utf8').replace(/^ExecStart=.*$/m, `ExecStart=${quote(process.execPath)} ${quote(RECAP_BIN)} daemon`);
  return { 'recap.service': service, 'recap.socket': readFileSync(join(UNITS, 'recap.socket'), 'utf8') };
}

export function installSystemd(env: NodeJS.ProcessEnv): string[] {
  const dir = systemdUserDir(env);
  mkdirSync(dir, { recursive: true });
  return Object.entries(renderUnits()).map(([name, text]) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  });
}
