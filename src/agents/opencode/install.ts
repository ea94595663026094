// `recap install opencode` and `recap uninstall opencode`: recap's plugin, one file in
// opencode's global plugins folder, rendered from the compiled plugin.ts with recap's paths
// filled in and written through a rename; removed only when it is recap's.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT, RECAP_HOOK_BIN } from '../../common/bins.js';
import { launcherPath, socketPath } from '../../common/paths.js';
import type { InstallOptions, Installed } from '../adapter.js';
import { hookEnvironment } from '../hookEnvironment.js';
import { writeIfChanged } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { homeOf } from '../kit/scopes.js';
import { EVENTS, opencodeConfigDir, pluginsOff, SESSION_VARIABLE } from './facts.js';
import type { PluginSettings } from './plugin.js';

/** The compiled plugin.ts, found from the package root so that tests run from src/ render it too. */
const PLUGIN_SOURCE = join(PACKAGE_ROOT, 'dist', 'agents', 'opencode', 'plugin.js');

/** The first line of the installed file: how recap knows the file is its own. */
export const PLUGIN_HEADER = '// recap: written by `recap install opencode`; `recap uninstall opencode` removes it. Do not edit: recap install writes it again.';

const SETTINGS_LINE = /^const SETTINGS = \/\* recap:settings \*\/ .*;$/m;

/** Where recap's plugin goes: opencode's global plugins folder, loaded in every project. */
export function pluginFile(env: NodeJS.ProcessEnv): string {
  return join(opencodeConfigDir(env, homeOf(env)), 'plugins', 'recap.js');
}

/** What the plugin needs to know, as this environment names it. */
export function pluginSettings(env: NodeJS.ProcessEnv, node = process.execPath, hookBin = RECAP_HOOK_BIN): PluginSettings {
  return {
    node,
    hookBin,
    socket: socketPath(env),
    launcher: launcherPath(env),
    environment: hookEnvironment(env),
    events: { ...EVENTS },
    sessionVariable: SESSION_VARIABLE,
  };
}

/** The plugin's text with these settings: the compiled plugin.ts, its SETTINGS line replaced. */
export function renderPlugin(settings: PluginSettings): string {
  const source = readFileSync(PLUGIN_SOURCE, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
  if (!SETTINGS_LINE.test(source)) throw new Error(`${PLUGIN_SOURCE} has no SETTINGS line to fill in; rebuild recap`);
  return `${PLUGIN_HEADER}\n${source.replace(SETTINGS_LINE, () => `const SETTINGS = ${JSON.stringify(settings)};`)}`;
}

/** Whether a file is recap's plugin (by its first line). */
export function isRecapPlugin(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').startsWith(`${PLUGIN_HEADER}\n`);
  } catch {
    return false;
  }
}

export function installPlugin({ scope, env }: InstallOptions): Installed {
  if (scope === 'project') {
    throw new InstallError(
      "opencode loads a project's plugins only where project config is allowed (not with OPENCODE_DISABLE_PROJECT_CONFIG) and after installing its packages there; " +
        'recap installs one plugin for every project instead: run recap install opencode without --scope project',
    );
  }
  const file = pluginFile(env);
  if (existsSync(file) && !isRecapPlugin(file)) throw new InstallError(`${file} is not recap's plugin; move it aside and run recap install opencode again (recap changed nothing)`);
  const text = renderPlugin(pluginSettings(env));
  const warnings: string[] = [];
  if (pluginsOff(env))
    warnings.push(`OPENCODE_PURE=${env.OPENCODE_PURE} is set here: opencode started with it (or with --pure) loads no plugins, recap's neither, and gates nothing`);
  // Through a rename: opencode never loads half a plugin.
  const changed = writeIfChanged(file, text, { mode: 0o644, temporary: join(dirname(file), `.recap-${process.pid}.tmp`) });
  return { file, changed, mode: 'plugin', warnings };
}

export function uninstallPlugin({ scope, env }: InstallOptions): string[] {
  if (scope === 'project') return [];
  const file = pluginFile(env);
  if (!isRecapPlugin(file)) return [];
  rmSync(file, { force: true });
  return [file];
}
