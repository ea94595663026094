// `recap install systemd` / `recap uninstall systemd`: recap's user units, with this
// installation's paths, where `systemctl --user` finds them; and gone again.
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_ENVIRONMENT, daemonCommand } from '../common/daemonStart.js';
import { UserError } from '../common/errors.js';
import { xdgConfigHome } from '../common/paths.js';

const UNITS = resolve(fileURLToPath(new URL('../../systemd', import.meta.url)));
const UNIT_NAMES = ['recap.service', 'recap.socket'] as const;
/** Where `systemctl --user enable` links each unit (its [Install] WantedBy=). */
const WANTED_BY = { 'recap.service': 'default.target.wants', 'recap.socket': 'sockets.target.wants' } as const;

export function systemdUserDir(env: NodeJS.ProcessEnv): string {
  return join(xdgConfigHome(env), 'systemd', 'user');
}

/** The units as shipped, with ExecStart running this Node and this recap as daemonCommand does, in its environment. */
export function renderUnits(): { 'recap.service': string; 'recap.socket': string } {
  const quote = (p: string) => (/\s/.test(p) ? `"${p}"` : p);
  const environment = Object.entries(DAEMON_ENVIRONMENT).map(([name, value]) => `\nEnvironment=${name}=${value}`);
  const service = readFileSync(join(UNITS, 'recap.service'), 'utf8').replace(/^ExecStart=.*$/m, `ExecStart=${daemonCommand().map(quote).join(' ')}${environment.join('')}`);
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

/**
 * Removes recap's units and the links `systemctl --user enable` made to them; the files
 * removed. A file of that name that is not recap's is left alone, and said so.
 */
export function uninstallSystemd(env: NodeJS.ProcessEnv): string[] {
  const dir = systemdUserDir(env);
  const removed: string[] = [];
  for (const name of UNIT_NAMES) {
    const file = join(dir, name);
    const text = readIfFile(file);
    if (text === undefined) continue;
    if (!text.includes('recap')) throw new UserError(`${file} is not recap's unit; recap left it and removed nothing`);
  }
  for (const name of UNIT_NAMES) {
    for (const file of [join(dir, WANTED_BY[name], name), join(dir, name)]) {
      if (!exists(file)) continue;
      rmSync(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function readIfFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
