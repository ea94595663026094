// `recap doctor`: one line per check of the installation, with the fix for each failure;
// `recap doctor --fix` first repairs what recap can itself, and says what it changed.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CURL, PERL, RECAP_BIN } from '../common/bins.js';
import { dataDir, eventLogDir, httpTokenFile, launcherSocketPath, projectConfigPath, socketPath, userConfigPath } from '../common/paths.js';
import { clearStaleSocket } from '../common/staleSocket.js';
import { whyUnreachable } from './autostart.js';
import { checkConfigFiles } from '../common/configLayers.js';
import { isRecapFolder } from '../agents/recapPaths.js';
import { recapServerCheck } from '../agents/kit/mcpServers.js';
import { ADAPTERS } from '../agents/adapters.js';
import type { Check } from '../common/check.js';
import { Client } from './socketClient.js';
import type { PendingConfig } from '../protocol/answers.js';
import type { ResponseOf } from '../protocol/protocol.js';
import { spelled } from './present/gate.js';
import { checkInstalledCode } from '../common/codeManifest.js';
import { REINSTALL, type CodeVerdict } from '../events/codeManifest.js';
import { addTallies } from '../events/secrets.js';

const MIN_NODE = [20, 19];

export async function runDoctor(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const verdict = installedCode(env);
  const code = codeCheck(verdict);
  const daemon = await daemonCheck(env, verdict instanceof Error || verdict.state === 'changed');
  return [
    nodeCheck(),
    code,
    daemon,
    launcherCheck(env, daemon.ok),
    ...permissionChecks(env),
    configCheck(project, env),
    ...(await approvalCheck(project, env)),
    ...(await secretsCheck(env)),
    ...(await syncCheck(project, env)),
    ...agentChecks(project, env),
    ...(await serviceChecks(env)),
  ];
}

/** The service manager's part: recap's launchd agent on macOS, its systemd user service on Linux. */
async function serviceChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  if (process.platform === 'linux') {
    const { checkSystemd } = await import('./systemdCheck.js');
    return [checkSystemd(env)];
  }
  if (process.platform !== 'darwin') return [];
  const { checkLaunchd } = await import('./launchdCheck.js');
  return [checkLaunchd(env, process.getuid!())];
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0]! || (major === MIN_NODE[0] && minor >= MIN_NODE[1]!);
  return { name: 'node', ok, detail: `v${process.versions.node}`, ...(ok ? {} : { fix: `install Node ${MIN_NODE.join('.')} or newer` }) };
}

/** recap's installed code against the manifest `recap install` wrote, as the daemon checks it at start; the error that kept it from being read. */
function installedCode(env: NodeJS.ProcessEnv): CodeVerdict | Error {
  try {
    return checkInstalledCode(env);
  } catch (error) {
    return error as Error;
  }
}

function codeCheck(verdict: CodeVerdict | Error): Check {
  const name = 'code';
  if (verdict instanceof Error) return { name, ok: false, detail: `recap's installed code cannot be read (${verdict.message})`, fix: REINSTALL };
  if (verdict.state === 'verified') return { name, ok: true, detail: `${verdict.files} files as recap install recorded them (${verdict.manifest})` };
  if (verdict.state === 'unverified') {
    return {
      name,
      ok: false,
      detail: `unverified: ${verdict.why}; the daemon starts without checking it`,
      fix: 'recap install <agent> again, in your own terminal: it records the code',
    };
  }
  return {
    name,
    ok: false,
    detail: verdict.message,
    fix: `${verdict.command} again, in your own terminal, if you upgraded or changed recap yourself; if not, ${REINSTALL} first`,
  };
}

/** `codeRefused`: recap's code does not match its manifest, so no daemon starts. */
async function daemonCheck(env: NodeJS.ProcessEnv, codeRefused: boolean): Promise<Check> {
  const path = socketPath(env);
  try {
    const client = await Client.connect(path, 1000);
    const { version } = await client.request('ping', {}, 2000);
    client.close();
    return { name: 'daemon', ok: true, detail: `running, version ${version}, on ${path}` };
  } catch (error) {
    // A daemon that runs on this data folder but not here is said as that, not "nobody listens".
    const detail = whyUnreachable(env)?.message ?? (error as Error).message;
    return {
      name: 'daemon',
      ok: false,
      detail,
      fix: codeRefused
        ? "it will not start until recap's code is recorded again: see code above"
        : 'start it: recap daemon (any recap command also starts it), or systemctl --user enable --now recap.socket',
    };
  }
}

/**
 * The hook launcher (bin/recap-hook.sh) answers a call from the daemon's launcher socket with
 * perl, or curl where there is no perl; without the socket or either program it hands every
 * call to recap-hook, which works but starts Node each time.
 */
function launcherCheck(env: NodeJS.ProcessEnv, daemonUp: boolean): Check {
  const name = 'hook launcher';
  const socket = launcherSocketPath(socketPath(env));
  const transport = [PERL, CURL].find((path) => existsSync(path));
  if (transport === undefined) {
    return { name, ok: true, detail: `no ${PERL} or ${CURL}: every hook call starts Node (tens of ms); install perl or curl for hooks that answer in a few ms` };
  }
  if (daemonUp && !isSocket(socket)) {
    return { name, ok: false, detail: `the daemon has no launcher socket ${socket} (an older daemon, or the file was removed): every hook call starts Node`, fix: 'recap restart' };
  }
  if (!daemonUp) return { name, ok: true, detail: `${transport}; the daemon makes ${socket} when it starts` };
  return { name, ok: true, detail: `${transport} and ${socket}` };
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

function modeCheck(name: string, path: string, wanted: number): Check | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  // Folders are 0700: one that is a file, or that its owner cannot write, is no use either.
  if (wanted === 0o700 && !stat.isDirectory()) return { name, ok: false, detail: `${path} is a file, not a folder`, fix: `move ${path} away; recap makes the folder anew` };
  const mode = stat.mode & 0o777;
  const mine = stat.uid === process.getuid?.();
  if (mine && (mode & 0o700 & wanted) !== (0o700 & wanted))
    return { name, ok: false, detail: `${path} is ${mode.toString(8).padStart(4, '0')}: you cannot use it`, fix: `chmod ${wanted.toString(8)} ${path}` };
  const ok = (mode & ~wanted) === 0 && mine;
  const detail = `${path} is ${mode.toString(8).padStart(4, '0')}${mine ? '' : ', owned by another user'}`;
  return { name, ok, detail, ...(ok ? {} : { fix: mine ? `chmod ${wanted.toString(8)} ${path}` : `remove ${path}; recap makes it anew` }) };
}

/** recap's own files and folders, each with the mode it must have (no more). */
function recapModes(env: NodeJS.ProcessEnv): { name: string; path: string; mode: number }[] {
  const socket = socketPath(env);
  return [
    { name: 'socket', path: socket, mode: 0o600 },
    ...(isRecapFolder(dirname(socket)) ? [{ name: 'socket folder', path: dirname(socket), mode: 0o700 }] : []),
    { name: 'data', path: dataDir(env), mode: 0o700 },
    { name: 'event log', path: eventLogDir(env), mode: 0o700 },
    { name: 'http token', path: httpTokenFile(env), mode: 0o600 },
  ];
}

function permissionChecks(env: NodeJS.ProcessEnv): Check[] {
  return recapModes(env)
    .map(({ name, path, mode }) => modeCheck(name, path, mode))
    .filter((c): c is Check => c !== undefined);
}

/**
 * `recap doctor --fix`: what recap can repair without asking, each change said in a line.
 * Recap's files of the user's that let others in get their mode; a socket file nobody
 * answers on is removed; an agent whose recap hooks point nowhere (recap moved) is
 * installed again, as its check's fix says. Anything else stays for the user.
 */
export async function fixDoctor(project: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const changed: string[] = [];
  for (const { path, mode } of recapModes(env)) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    const now = stat.mode & 0o777;
    const fits = (now & ~mode) === 0 && (now & mode & 0o700) === (mode & 0o700);
    if (fits || stat.uid !== process.getuid?.() || (mode === 0o700 && !stat.isDirectory())) continue;
    chmodSync(path, mode);
    changed.push(`chmod ${mode.toString(8)} ${path} (it was ${now.toString(8).padStart(4, '0')})`);
  }
  const socket = socketPath(env);
  if (existsSync(socket)) {
    try {
      await clearStaleSocket(socket);
      if (!existsSync(socket)) changed.push(`removed ${socket}: a socket nobody answered on, left by a daemon that died`);
    } catch {
      // A live daemon's socket, or not a socket at all: the daemon check says which.
    }
  }
  const installs = new Map<string, Check>();
  for (const check of agentChecks(project, env)) {
    const install = check.ok ? undefined : /^recap (install [a-z]+(?: --(?:plugin|http)| --scope (?:user|project))*)(?: \(|$)/.exec(check.fix ?? '')?.[1];
    if (install !== undefined && !installs.has(install)) installs.set(install, check);
  }
  for (const [install, check] of installs) {
    const ran = spawnSync(process.execPath, [RECAP_BIN, ...install.split(' ')], { env, cwd: project, encoding: 'utf8' });
    const said = `${ran.stdout ?? ''}${ran.stderr ?? ''}`.trim().replace(/\n+/g, '; ');
    changed.push(ran.status === 0 ? `ran recap ${install}, as the ${check.name} check asked: ${said}` : `recap ${install}, as the ${check.name} check asked, failed: ${said}`);
  }
  return changed;
}

function configCheck(project: string, env: NodeJS.ProcessEnv): Check {
  const files = [userConfigPath(env), projectConfigPath(project)];
  const problems = checkConfigFiles(files, env);
  if (problems.length > 0) return { name: 'config', ok: false, detail: problems.join('; '), fix: 'correct the line named, then: recap reload' };
  const present = files.filter((f) => existsSync(f));
  return { name: 'config', ok: true, detail: present.length > 0 ? `valid: ${present.join(', ')}` : 'no config files; the defaults are in force' };
}

/** Whether a change of the user's or the project's config file waits for the user's approval (asked of a running daemon). */
async function approvalCheck(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  let shown: ResponseOf<'config'>;
  try {
    const client = await Client.connect(socketPath(env), 1000);
    try {
      shown = await client.request('config', { cwd: project }, 2000);
    } finally {
      client.close();
    }
  } catch {
    return []; // The daemon check says why it cannot be asked.
  }
  // Asked without `allow`, the daemon shows the configuration (an approval has no `pending`).
  const waiting = ('values' in shown ? [shown.userPending, shown.pending] : []).filter((p): p is PendingConfig => p !== undefined);
  if (waiting.length === 0) return [{ name: 'config approval', ok: true, detail: 'no config change waits for approval' }];
  return waiting.map((pending) => {
    const keys = pending.held.map((h) => `${h.key}=${spelled(h.to)} (in force: ${spelled(h.from)})`).join(', ');
    return { name: 'config approval', ok: false, detail: `${pending.file} waits for approval: ${keys}`, fix: `read the change, then run yourself: ${pending.command}` };
  });
}

/** How many secrets recap replaced before storing a text, every job's, by kind (read from the log; appends nothing). */
async function secretsCheck(env: NodeJS.ProcessEnv): Promise<Check[]> {
  let jobs: ResponseOf<'report'>['jobs'];
  try {
    const client = await Client.connect(socketPath(env), 1000);
    try {
      ({ jobs } = await client.request('report', {}, 5000));
    } finally {
      client.close();
    }
  } catch {
    return []; // The daemon check says why it cannot be asked.
  }
  const kinds = new Map<string, number>();
  for (const job of jobs) addTallies(kinds, job.secrets);
  const total = [...kinds.values()].reduce((a, b) => a + b, 0);
  const byKind = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
  const detail = total === 0 ? 'none found in the texts recap stored' : `${total} replaced before storing, never written to the log (${byKind})`;
  return [{ name: 'secrets', ok: true, detail }];
}

/** The project's sync (docs/sync.md): off, never run since the daemon started, or what the last one did and what stopped it. */
async function syncCheck(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  let last: ResponseOf<'sync'>;
  try {
    const client = await Client.connect(socketPath(env), 1000);
    try {
      last = await client.request('sync', { cwd: project, last: true }, 5000);
    } finally {
      client.close();
    }
  } catch {
    return []; // The daemon check says why it cannot be asked.
  }
  if (last.mode === 'off') return [{ name: 'sync', ok: true, detail: 'off (SYNC=off): summaries stay on this machine' }];
  if (last.never) return [{ name: 'sync', ok: true, detail: `SYNC=${last.mode}; no sync of this project since the daemon started` }];
  const when = new Date(last.time).toISOString();
  if (last.error !== undefined) return [{ name: 'sync', ok: false, detail: `the last sync (${when}) stopped: ${last.error}`, fix: 'recap sync, once the cause is mended' }];
  const refused = (last.fetched ?? []).filter((c) => c.refused !== undefined);
  if (refused.length > 0) {
    return refused.map((c) => ({
      name: 'sync',
      ok: false,
      detail: `the last sync (${when}) refused ${c.author ?? 'no author'} on ${c.host}'s chain: ${c.refused}`,
      fix: `ask whoever owns that machine to run recap sync; nothing of it is in your memory until it checks`,
    }));
  }
  return [{ name: 'sync', ok: true, detail: `SYNC=${last.mode}; the last sync (${when}) with ${last.remote ?? 'the remote'} finished in ${last.ms} ms` }];
}

/**
 * Each agent's installation: every agent recap is installed for, or whose settings it
 * finds, says whether its hooks will really run; with none installed, one line says how.
 */
function agentChecks(project: string, env: NodeJS.ProcessEnv): Check[] {
  const checks = Object.values(ADAPTERS).flatMap((adapter) => {
    const own = adapter.doctor(project, env);
    // recap's MCP server, for an agent recap is installed in: registered, optional, or another program under its name.
    return own.length > 0 && adapter.mcp ? [...own, recapServerCheck(adapter.mcp, adapter.facts.name, adapter.facts.title, project, env)] : own;
  });
  if (checks.length > 0) return checks;
  return [{ name: 'hooks', ok: false, detail: 'recap is not installed in any agent', fix: `recap install <agent>, the agent one of: ${Object.keys(ADAPTERS).join(', ')}` }];
}
