// recap's Claude Code plugin: a local marketplace folder shipped in the npm package
// (claude-plugin/), installed and removed with Claude Code's own `claude plugin` commands.
// A folder marketplace runs the plugin in place, so the folder must stay where it is: the
// package's own folder keeps its path across `npm install -g` upgrades. Claude Code runs a
// plugin's hooks beside those of its settings, so recap is in one or the other, never both.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../common/bins.js';
import { writeIfChanged } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { homeOf, type Scope } from '../kit/scopes.js';
import { editSettings, readSettings } from './install.js';
import type { Settings } from './settings.js';

export const MARKETPLACE = 'recap-local';
export const PLUGIN_ID = `recap@${MARKETPLACE}`;
export const MARKETPLACE_DIR = join(PACKAGE_ROOT, 'claude-plugin');
export const PLUGIN_DIR = join(MARKETPLACE_DIR, 'plugins', 'recap');

const configDir = (env: NodeJS.ProcessEnv) => env.CLAUDE_CONFIG_DIR || join(homeOf(env), '.claude');

/** Where Claude Code keeps the plugin's data (CLAUDE_PLUGIN_DATA in its hooks): the Node the hook runs with is written there. */
export const pluginDataDir = (env: NodeJS.ProcessEnv) => join(configDir(env), 'plugins', 'data', `recap-${MARKETPLACE}`);

/** The settings file a `claude plugin --scope` writes to. */
export function pluginSettingsFile(scope: Scope, project: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(configDir(env), 'settings.json') : join(project, '.claude', 'settings.json');
}

/** What a settings file says of recap's plugin: enabled, and the folder its marketplace is read from. */
export function pluginIn(file: string): { enabled: boolean; folder?: string } {
  const settings = readSettings(file) as { enabledPlugins?: Record<string, unknown>; extraKnownMarketplaces?: Record<string, { source?: { path?: unknown } }> };
  const path = settings.extraKnownMarketplaces?.[MARKETPLACE]?.source?.path;
  return { enabled: settings.enabledPlugins?.[PLUGIN_ID] === true, ...(typeof path === 'string' ? { folder: path } : {}) };
}

/** `claude` is not on PATH. */
class NoClaude extends InstallError {}

/** Runs `claude` with these arguments in the project; its own words when it fails. */
function claude(args: string[], project: string, env: NodeJS.ProcessEnv): void {
  try {
    execFileSync('claude', args, { cwd: project, env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { code?: string; stderr?: string; stdout?: string; message: string };
    if (e.code === 'ENOENT') throw new NoClaude('`claude` is not on PATH: install Claude Code first, or install recap as settings hooks (leave out --plugin)');
    const said = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim().replace(/\s+/g, ' ') || e.message;
    throw new InstallError(`claude ${args.join(' ')} failed: ${said}`);
  }
}

/**
 * Adds the package's marketplace (again, when it was added from a folder that moved) and
 * installs the plugin from it, then writes down the Node the plugin's hook runs with.
 */
export function installPlugin(scope: Scope, project: string, env: NodeJS.ProcessEnv): { file: string; changed: boolean } {
  const file = pluginSettingsFile(scope, project, env);
  const before = pluginIn(file);
  if (before.folder !== undefined && before.folder !== MARKETPLACE_DIR) claude(['plugin', 'marketplace', 'remove', MARKETPLACE], project, env);
  if (before.folder !== MARKETPLACE_DIR) claude(['plugin', 'marketplace', 'add', MARKETPLACE_DIR, '--scope', scope], project, env);
  if (!before.enabled || before.folder !== MARKETPLACE_DIR) claude(['plugin', 'install', PLUGIN_ID, '--scope', scope], project, env);
  const changed = writeNode(env) || !before.enabled || before.folder !== MARKETPLACE_DIR;
  return { file, changed };
}

/** Whether the recorded Node changed. */
function writeNode(env: NodeJS.ProcessEnv): boolean {
  return writeIfChanged(join(pluginDataDir(env), 'node'), process.execPath, { mode: 0o644 });
}

/** Removes the plugin and its marketplace where this scope has them; the settings file when it changed. */
export function uninstallPlugin(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const file = pluginSettingsFile(scope, project, env);
  const { enabled, folder } = pluginIn(file);
  if (!enabled && folder === undefined) return [];
  // The marketplace is one for every scope: it stays while another scope still loads the plugin from it.
  const other = pluginIn(pluginSettingsFile(scope === 'user' ? 'project' : 'user', project, env));
  const keepMarketplace = other.enabled && other.folder !== undefined;
  try {
    if (enabled) claude(['plugin', 'uninstall', PLUGIN_ID, '--scope', scope], project, env);
    if (folder !== undefined && !keepMarketplace) claude(['plugin', 'marketplace', 'remove', MARKETPLACE], project, env);
  } catch (error) {
    // Without Claude Code there is no plugin to run, but its entries would come back with it.
    if (!(error instanceof NoClaude)) throw error;
    editSettings(file, withoutPlugin);
  }
  return [file];
}

/** The settings without recap's plugin and marketplace, everything else as it was. */
function withoutPlugin(settings: Settings): Settings {
  const without = (value: unknown, key: string) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
    return rest;
  };
  return { ...settings, enabledPlugins: without(settings.enabledPlugins, PLUGIN_ID), extraKnownMarketplaces: without(settings.extraKnownMarketplaces, MARKETPLACE) };
}
