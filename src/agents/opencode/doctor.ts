// `recap doctor` for opencode: recap's plugin is in opencode's plugins folder, is the one this
// recap would write now (its Node, recap-hook and socket), loads and hands opencode its hooks
// (opencode skips a plugin that fails to load without a word), and OPENCODE_PURE does not
// switch it off.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Check } from '../../common/check.js';
import { homeOf } from '../kit/scopes.js';
import { opencodeConfigDir, pluginsOff } from './facts.js';
import { isRecapPlugin, pluginFile, pluginSettings, renderPlugin } from './install.js';
import type { PluginSettings } from './plugin.js';

const NAME = 'opencode';
const FIX = 'recap install opencode';

/** The hooks recap's plugin must hand opencode. */
export const PLUGIN_HOOKS = ['chat.message', 'tool.execute.before', 'experimental.chat.system.transform', 'shell.env'];

export function opencodeDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const file = pluginFile(env);
  if (!existsSync(file)) {
    const folder = opencodeConfigDir(env, homeOf(env));
    return existsSync(folder) ? [{ name: NAME, ok: false, detail: `opencode is set up (${folder}) but recap's plugin is not in ${file}`, fix: FIX }] : [];
  }
  const checks = [pluginCheck(file, project, env)];
  if (pluginsOff(env)) {
    checks.push({
      name: 'opencode pure',
      ok: false,
      detail: `OPENCODE_PURE=${env.OPENCODE_PURE} is set: opencode started here loads no plugins, recap's neither, and gates nothing`,
      fix: 'unset OPENCODE_PURE (and do not start opencode with --pure)',
    });
  }
  return checks;
}

function pluginCheck(file: string, project: string, env: NodeJS.ProcessEnv): Check {
  if (!isRecapPlugin(file)) return { name: NAME, ok: false, detail: `${file} is not recap's plugin`, fix: `move ${file} aside, then: ${FIX}` };
  const loaded = load(file, project);
  if ('error' in loaded) return { name: NAME, ok: false, detail: `${file} does not load (${loaded.error}), and opencode skips such a plugin without a word`, fix: FIX };
  const missing = PLUGIN_HOOKS.filter((hook) => !loaded.hooks.includes(hook));
  if (missing.length > 0) return { name: NAME, ok: false, detail: `${file} loads but hands opencode no ${missing.join(', ')} hook`, fix: FIX };
  const stale = staleness(file, env);
  if (stale !== undefined) return { name: NAME, ok: false, detail: `${file}: ${stale}`, fix: FIX };
  return { name: NAME, ok: true, detail: `${file} loads and hands opencode its ${PLUGIN_HOOKS.join(', ')} hooks, in every project` };
}

/** Why the installed plugin is not the one this recap writes now, if it is not. */
function staleness(file: string, env: NodeJS.ProcessEnv): string | undefined {
  const text = readFileSync(file, 'utf8');
  if (text === renderPlugin(pluginSettings(env))) return undefined;
  const line = /^const SETTINGS = (\{.*\});$/m.exec(text)?.[1];
  let installed: Partial<PluginSettings> = {};
  try {
    installed = line !== undefined ? (JSON.parse(line) as Partial<PluginSettings>) : {};
  } catch {
    // Said below as written by another recap.
  }
  const gone = [installed.node, installed.hookBin].find((path) => typeof path !== 'string' || !existsSync(path));
  if (gone !== undefined) return `it runs ${String(gone)}, which does not exist: recap moved or Node changed, and every call would go unchecked`;
  const now = pluginSettings(env);
  if (installed.socket !== now.socket) return `it asks the daemon on ${String(installed.socket)}, not ${now.socket} as here`;
  return 'it was written by another recap version or for another environment';
}

/**
 * The plugin loaded as opencode loads it, in a process of its own: imported, each exported
 * function called with a context like opencode's, the hooks they return listed.
 */
const LOADER = `
const [file, project] = process.argv.slice(1);
try {
  const mod = await import(require('node:url').pathToFileURL(file).href);
  const hooks = [];
  for (const plugin of Object.values(mod)) {
    if (typeof plugin !== 'function') throw new Error('it exports something that is not a plugin function');
    const given = await plugin({ directory: project, worktree: project, project: {}, client: {}, serverUrl: new URL('http://127.0.0.1:4096'), $: undefined });
    hooks.push(...Object.keys(given ?? {}));
  }
  process.stdout.write(JSON.stringify({ hooks }));
} catch (error) {
  process.stdout.write(JSON.stringify({ error: String(error?.message ?? error).split('\\n')[0] }));
}
`;

function load(file: string, project: string): { hooks: string[] } | { error: string } {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);${LOADER}`, file, project],
    {
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    return JSON.parse(run.stdout) as { hooks: string[] } | { error: string };
  } catch {
    return { error: run.error?.message ?? (run.stderr.trim().split('\n')[0] || `exit ${run.status}`) };
  }
}
