// `recap doctor` for Claude Code: recap's hooks in its settings, each one able to run and
// fail closed, or its plugin, loadable from this recap's folder; never both; and a Claude
// Code new enough to fail closed.
import { commandProblem } from '../hookCommand.js';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Check } from '../../common/check.js';
import { httpTokenFile } from '../../common/paths.js';
import { httpPort, httpPortFile, keptPort } from '../../common/httpPort.js';
import { checkOf, findHooks, hookFaults } from '../kit/hookChecks.js';
import { scopeFlag, SCOPES, type Scope } from '../kit/scopes.js';
import { claudeVersion, claudeVersionWarning, FAIL_CLOSED_SINCE, failsClosed, readSettings, settingsFiles } from './install.js';
import { MARKETPLACE_DIR, PLUGIN_ID, pluginDataDir, pluginIn, pluginSettingsFile } from './plugin.js';
import { PORTABLE_COMMAND, RECAP_EVENTS, recapHooksIn, type HookEntry } from './settings.js';

/** Recap's hooks or plugin in Claude Code and the Claude Code that runs them; nothing when neither is here. */
export function claudeDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const version = claudeVersion(env);
  const honoured = version === undefined || failsClosed(version);
  const { checks: hooks, files } = hookChecks(project, env, honoured);
  const plugin = pluginChecks(project, env);
  const both =
    files.length > 0 && plugin.scopes.length > 0
      ? [
          {
            name: 'claude hooks',
            ok: false,
            detail: `recap is in Claude Code twice, as hooks in ${files.join(', ')} and as its plugin (${plugin.scopes.join(', ')} scope): every hook runs twice`,
            fix: 'keep one: recap install claude (settings hooks) or recap install claude --plugin',
          },
        ]
      : [];
  const found = [...hooks, ...plugin.checks, ...both];
  return found.length > 0 ? [...found, ...claudeCheck(version)] : [];
}

/** recap's plugin where a settings file enables it: its marketplace folder must be this recap's, and there. */
function pluginChecks(project: string, env: NodeJS.ProcessEnv): { checks: Check[]; scopes: Scope[] } {
  const checks: Check[] = [];
  const scopes: Scope[] = [];
  for (const scope of SCOPES) {
    const file = pluginSettingsFile(scope, project, env);
    let plugin: ReturnType<typeof pluginIn>;
    try {
      plugin = pluginIn(file);
    } catch {
      continue; // hookChecks reports a broken settings file.
    }
    if (!plugin.enabled) continue;
    scopes.push(scope);
    const reinstall = `recap install claude --plugin${scopeFlag(scope)}`;
    if (plugin.folder === undefined || !existsSync(plugin.folder)) {
      const where = plugin.folder === undefined ? 'no marketplace folder is known for it' : `its folder ${plugin.folder} is gone (recap moved or was removed)`;
      checks.push({
        name: 'claude plugin',
        ok: false,
        detail: `${PLUGIN_ID} is enabled in ${file}, but ${where}: Claude Code fails to load it and recap's gate is off`,
        fix: reinstall,
      });
    } else if (plugin.folder !== MARKETPLACE_DIR) {
      checks.push({ name: 'claude plugin', ok: false, detail: `${PLUGIN_ID} runs from ${plugin.folder}, another recap than this one (${MARKETPLACE_DIR})`, fix: reinstall });
    } else if (!existsSync(join(pluginDataDir(env), 'node'))) {
      checks.push({ name: 'claude plugin', ok: false, detail: `${PLUGIN_ID}'s hook runs the node on PATH, not the Node recap was installed with`, fix: reinstall });
    } else {
      checks.push({ name: 'claude plugin', ok: true, detail: `${PLUGIN_ID} from ${plugin.folder}, enabled in ${file}` });
    }
  }
  return { checks, scopes };
}

/** A Claude Code older than FAIL_CLOSED_SINCE runs the tool when recap's hook fails. */
function claudeCheck(version: string | undefined): Check[] {
  if (version === undefined) return [];
  const warning = claudeVersionWarning(version);
  return [
    warning
      ? {
          name: 'claude code',
          ok: false,
          detail: `${version}: a failing hook lets the tool run (the gate fails open)`,
          fix: `update Claude Code to ${FAIL_CLOSED_SINCE} or newer: claude update`,
        }
      : { name: 'claude code', ok: true, detail: `${version}: a failing PreToolUse hook denies the call` },
  ];
}

/** `honoured`: whether this Claude Code honours onFailure (claudeCheck speaks of one that does not). */
function hookChecks(project: string, env: NodeJS.ProcessEnv, honoured: boolean): { checks: Check[]; files: string[] } {
  const files = SCOPES.flatMap((scope) => {
    const { shared, local } = settingsFiles(scope, project, env);
    return [...new Set([shared, local])].map((file) => ({ file }));
  });
  const { found, checks } = findHooks('claude hooks', files, (file) => recapHooksIn(readSettings(file)));
  if (found.length === 0) return { checks, files: [] };
  const committed = settingsFiles('project', project, env).shared;
  const faults = hookFaults(
    RECAP_EVENTS.map((e) => e.event),
    found,
    ({ file, event, hook }) => hookProblem(event, hook, env, honoured, file === committed),
  );
  const modes = [...new Set(found.map((f) => f.hook.type))].join(' and ');
  const where = [...new Set(found.map((f) => f.file))].join(', ');
  return {
    checks: [...checks, checkOf('claude hooks', faults, `${modes} hooks in ${where}`, 'recap install claude (add --http for HTTP hooks)')],
    files: [...new Set(found.map((f) => f.file))],
  };
}

/** `committed`: the hook is in the project's shared settings.json, which names no path of this machine. */
function hookProblem(event: string, hook: HookEntry, env: NodeJS.ProcessEnv, honoured: boolean, committed: boolean): string | undefined {
  if (hook.type === 'command' && committed) {
    if (hook.command !== PORTABLE_COMMAND)
      return `the command names a path of this machine (${hook.command}) in a file teammates share; run recap install claude --scope project again`;
    if (onPath('recap-hook', env) === undefined) return 'recap-hook is not on PATH, so Claude Code cannot run it here: put it on PATH (npm link in the clone of recap)';
  } else if (hook.type === 'command') {
    const problem = commandProblem(hook.command, 'claude');
    if (problem) return problem;
  }
  if (event === 'PreToolUse' && honoured && hook.onFailure !== 'block') return 'no onFailure: "block", so a failing hook lets the tool run; run recap install claude again';
  if (hook.type === 'command') return undefined;
  const tokenFile = httpTokenFile(env);
  if (!existsSync(tokenFile)) return `no token file ${tokenFile}`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  if (hook.headers.Authorization !== `Bearer ${token}`) return `its token is not the one in ${tokenFile}`;
  // The daemon listens on this user's kept port (or RECAP_HTTP_PORT): a hook to another goes nowhere, or to someone else.
  const port = httpPort(env) ?? keptPort(httpPortFile(env));
  const named = Number(/:(\d+)\//.exec(hook.url)?.[1]);
  return port === undefined || named === port ? undefined : `its port ${named} is not the daemon's (${port}); run recap install claude --http again`;
}

/** Where PATH finds an executable `name`, as the shell running the hook would. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir || '.', name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here: the next folder.
    }
  }
  return undefined;
}
