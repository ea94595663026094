// `recap doctor`: one line per check of the installation, with the fix for each failure.
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { dataDir, httpTokenFile, projectConfigPath, socketPath, userConfigPath } from '../common/paths.js';
import { checkConfigFiles } from '../daemon/configService.js';
import { isRecapFolder } from '../daemon/recapPaths.js';
import { ADAPTERS } from '../agents/adapters.js';
import type { Check } from './checks.js';
import { Client } from './socketClient.js';
import type { PendingConfig } from '../daemon/configService.js';
import { spelled } from './configCommands.js';

export { printChecks, type Check } from './checks.js';

const MIN_NODE = [20, 19];

export async function runDoctor(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  return [nodeCheck(), await daemonCheck(env), ...permissionChecks(env), configCheck(project, env), ...(await approvalCheck(project, env)), ...agentChecks(project, env)];
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0]! || (major === MIN_NODE[0] && minor >= MIN_NODE[1]!);
  return { name: 'node', ok, detail: `v${process.versions.node}`, ...(ok ? {} : { fix: `install Node ${MIN_NODE.join('.')} or newer` }) };
}

async function daemonCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  const path = socketPath(env);
  try {
    const client = await Client.connect(path, 1000);
    const { version } = await client.request<{ version: string }>('ping', {}, 2000);
    client.close();
    return { name: 'daemon', ok: true, detail: `running, version ${version}, on ${path}` };
  } catch (error) {
    return {
      name: 'daemon',
      ok: false,
      detail: (error as Error).message,
      fix: 'start it: recap daemon (any recap command also starts it), or systemctl --user enable --now recap.socket',
    };
  }
}

function modeCheck(name: string, path: string, wanted: number): Check | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  const mode = stat.mode & 0o777;
  const mine = stat.uid === process.getuid?.();
  const ok = (mode & ~wanted) === 0 && mine;
  const detail = `${path} is ${mode.toString(8).padStart(4, '0')}${mine ? '' : ', owned by another user'}`;
  return { name, ok, detail, ...(ok ? {} : { fix: mine ? `chmod ${wanted.toString(8)} ${path}` : `remove ${path}; recap makes it anew` }) };
}

function permissionChecks(env: NodeJS.ProcessEnv): Check[] {
  const socket = socketPath(env);
  return [
    modeCheck('socket', socket, 0o600),
    isRecapFolder(dirname(socket)) ? modeCheck('socket folder', dirname(socket), 0o700) : undefined,
    modeCheck('data', dataDir(env), 0o700),
    modeCheck('http token', httpTokenFile(env), 0o600),
  ].filter((c): c is Check => c !== undefined);
}

function configCheck(project: string, env: NodeJS.ProcessEnv): Check {
  const files = [userConfigPath(env), projectConfigPath(project)];
  const problems = checkConfigFiles(files, env);
  if (problems.length > 0) return { name: 'config', ok: false, detail: problems.join('; '), fix: 'correct the line named, then kill -HUP the daemon' };
  const present = files.filter((f) => existsSync(f));
  return { name: 'config', ok: true, detail: present.length > 0 ? `valid: ${present.join(', ')}` : 'no config files; the defaults are in force' };
}

/** Whether a change of the project's config file waits for the user's approval (asked of a running daemon). */
async function approvalCheck(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  let shown: { pending?: PendingConfig };
  try {
    const client = await Client.connect(socketPath(env), 1000);
    try {
      shown = await client.request<{ pending?: PendingConfig }>('config', { cwd: project }, 2000);
    } finally {
      client.close();
    }
  } catch {
    return []; // The daemon check says why it cannot be asked.
  }
  const { pending } = shown;
  if (!pending) return [{ name: 'config approval', ok: true, detail: 'no project config change waits for approval' }];
  const keys = pending.held.map((h) => `${h.key}=${spelled(h.to)} (in force: ${spelled(h.from)})`).join(', ');
  return [{ name: 'config approval', ok: false, detail: `${pending.file} waits for approval: ${keys}`, fix: 'read the change, then run yourself: recap config allow' }];
}

/**
 * Each agent's installation: every agent recap is installed for, or whose settings it
 * finds, says whether its hooks will really run; with none installed, one line says how.
 */
function agentChecks(project: string, env: NodeJS.ProcessEnv): Check[] {
  const checks = Object.values(ADAPTERS).flatMap((adapter) => adapter.doctor(project, env));
  if (checks.length > 0) return checks;
  return [{ name: 'hooks', ok: false, detail: 'recap is not installed in any agent', fix: `recap install <agent>, the agent one of: ${Object.keys(ADAPTERS).join(', ')}` }];
}
