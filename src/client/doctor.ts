// `recap doctor`: one line per check of the installation, with the fix for each failure.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { dataDir, httpTokenFile, projectConfigPath, socketPath, userConfigPath } from '../common/paths.js';
import { combine, readLayer } from '../daemon/configService.js';
import { isRecapFolder } from '../daemon/recapPaths.js';
import { hookCommandWords, RECAP_EVENTS, recapHooksIn, type HookEntry } from './claudeSettings.js';
import { claudeVersion, claudeVersionWarning, FAIL_CLOSED_SINCE, readSettings, settingsFiles, type Scope } from './installClaude.js';
import { Client } from './socketClient.js';
import { jobIdFor } from '../common/jobs.js';
import type { PendingConfig } from '../daemon/configService.js';
import { spelled } from './configCommands.js';

export type Check = { name: string; ok: boolean; detail: string; fix?: string };

const MIN_NODE = [20, 19];

export async function runDoctor(project: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  return [nodeCheck(), await daemonCheck(env), ...permissionChecks(env), configCheck(project, env), ...(await approvalCheck(project, env)), ...hookChecks(project, env), ...claudeCheck(env)];
}

/** A Claude Code older than FAIL_CLOSED_SINCE runs the tool when recap's hook fails. */
function claudeCheck(env: NodeJS.ProcessEnv): Check[] {
  const version = claudeVersion(env);
  if (version === undefined) return [];
  const warning = claudeVersionWarning(version);
  return [
    warning
      ? { name: 'claude code', ok: false, detail: `${version}: a failing hook lets the tool run (the gate fails open)`, fix: `update Claude Code to ${FAIL_CLOSED_SINCE} or newer: claude update` }
      : { name: 'claude code', ok: true, detail: `${version}: a failing PreToolUse hook denies the call` },
  ];
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
  const layers = [];
  const problems: string[] = [];
  for (const file of files) {
    const read = readLayer(file, env);
    if (read.ok) layers.push(read.layer);
    else problems.push(...read.problems);
  }
  const combined = combine(layers);
  if (!combined.ok) problems.push(...combined.problems);
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
      shown = await client.request<{ pending?: PendingConfig }>('config', { job: jobIdFor(project), project }, 2000);
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

function hookChecks(project: string, env: NodeJS.ProcessEnv): Check[] {
  const found: { file: string; event: string; hook: HookEntry }[] = [];
  const checks: Check[] = [];
  for (const scope of ['user', 'project'] as Scope[]) {
    const { shared, local } = settingsFiles(scope, project, env);
    for (const file of new Set([shared, local])) {
      try {
        for (const hit of recapHooksIn(readSettings(file))) found.push({ file, ...hit });
      } catch (error) {
        checks.push({ name: 'hooks', ok: false, detail: (error as Error).message, fix: `repair the JSON in ${file}` });
      }
    }
  }
  if (found.length === 0) {
    return [...checks, { name: 'hooks', ok: false, detail: 'recap is not installed in Claude Code', fix: 'recap install claude' }];
  }
  const missing = RECAP_EVENTS.map((e) => e.event).filter((event) => !found.some((f) => f.event === event));
  const broken = found.flatMap(({ file, event, hook }) => {
    const problem = hookProblem(event, hook, env);
    return problem ? [`${event} in ${file}: ${problem}`] : [];
  });
  const modes = [...new Set(found.map((f) => f.hook.type))].join(' and ');
  const where = [...new Set(found.map((f) => f.file))].join(', ');
  const ok = missing.length === 0 && broken.length === 0;
  const detail = ok ? `${modes} hooks in ${where}` : [...missing.map((e) => `no ${e} hook`), ...broken].join('; ');
  return [...checks, { name: 'hooks', ok, detail, ...(ok ? {} : { fix: 'recap install claude (add --http for HTTP hooks)' }) }];
}

function hookProblem(event: string, hook: HookEntry, env: NodeJS.ProcessEnv): string | undefined {
  if (hook.type === 'command') {
    const words = hookCommandWords(hook.command);
    const missing = words.find((w) => !existsSync(w));
    if (missing) return `${missing} does not exist`;
    // `#!/usr/bin/env node` finds Node on PATH: a node written early on PATH switches the hook off.
    if (words.length < 2 || !words[0]!.startsWith('/')) return 'the command does not name node by absolute path; run recap install claude again';
  }
  if (event === 'PreToolUse' && hook.onFailure !== 'block') return 'no onFailure: "block", so a failing hook lets the tool run; run recap install claude again';
  if (hook.type === 'command') return undefined;
  const tokenFile = httpTokenFile(env);
  if (!existsSync(tokenFile)) return `no token file ${tokenFile}`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  return hook.headers.Authorization === `Bearer ${token}` ? undefined : `its token is not the one in ${tokenFile}`;
}

export function printChecks(checks: Check[]): void {
  for (const c of checks) {
    process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(13)} ${c.detail}${c.fix ? `\n      fix: ${c.fix}` : ''}\n`);
  }
}
