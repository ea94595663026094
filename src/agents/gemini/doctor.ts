// `recap doctor` for Gemini CLI: recap's extension is there, whole, names a Node and a
// recap-hook that exist and this environment's daemon; and nothing switches its hooks off
// (hooks disabled in the settings, the extension disabled for this folder, a second extension
// of its name, extensions restricted to allowed sources, the CLI's sandbox, a project .env
// that moves the CLI's home), loads code into its shell, or runs recap-hook a second way
// (settings hooks).
import { accessSync, existsSync, constants as fs, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Check } from '../../common/check.js';
import { readJsonObject, type Parsed } from '../kit/jsonFile.js';
import { homeOf } from '../kit/scopes.js';
import { launcherOf } from '../hookCommand.js';
import {
  commandTarget,
  EXTENSION_NAME,
  extensionPaths,
  HOOK_NAME,
  hookEnvironment,
  LOADERS,
  RECAP_EVENTS,
  runsRecapHook,
  SHELL_TRACE,
  TIMEOUT_MS,
  type ExtensionPaths,
} from './extension.js';
import { geminiDir } from './facts.js';
import { isRecapExtension, namesakes, readManifest } from './install.js';

const FIX = 'recap install gemini';

export function geminiDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const home = homeOf(env);
  const paths = extensionPaths(env, home);
  const settings = settingsFiles(project, env, home).map((file) => ({ file, read: readSettings(file) }));
  const inSettings = settings.flatMap(({ file, read }) => (read.ok ? recapHooksIn(read.value).map((event) => ({ file, event })) : []));
  if (!existsSync(paths.dir) && inSettings.length === 0) {
    const folder = geminiDir(env, home);
    return existsSync(folder) ? [{ name: 'gemini hooks', ok: false, detail: `Gemini CLI is set up (${folder}) but recap is not installed for it`, fix: FIX }] : [];
  }
  return [extensionCheck(paths, hookEnvironment(env)), runsCheck(paths, project, env, home, settings, inSettings)];
}

/** The extension itself: recap's, with every hook, each naming files that exist. */
function extensionCheck(paths: ExtensionPaths, environment: Record<string, string>): Check {
  const name = 'gemini hooks';
  if (!existsSync(paths.dir)) return { name, ok: false, detail: `no recap extension in ${paths.dir}`, fix: FIX };
  if (!isRecapExtension(paths)) {
    const read = readManifest(paths.manifest);
    const what = read === undefined ? 'has no gemini-extension.json, so Gemini CLI does not load it' : read.ok ? 'holds an extension recap did not write' : read.problem;
    return { name, ok: false, detail: `${paths.dir} ${what}`, fix: `move ${paths.dir} aside, then: ${FIX}` };
  }
  let hooks: unknown;
  try {
    hooks = (JSON.parse(readFileSync(paths.hooks, 'utf8')) as { hooks?: unknown }).hooks;
  } catch (error) {
    return { name, ok: false, detail: `cannot read ${paths.hooks}: ${(error as Error).message.replace(/\s+/g, ' ')}`, fix: FIX };
  }
  const problems = RECAP_EVENTS.flatMap(({ event, matcher }) => {
    const entries = groupsOf(hooks, event)
      .filter((g) => g.matcher === matcher)
      .flatMap((g) => g.hooks);
    const entry = entries.find((h) => h?.name === HOOK_NAME && typeof h.command === 'string' && commandTarget(h.command) !== undefined);
    if (!entry) return [`no ${event} hook`];
    const target = commandTarget(entry.command as string)!;
    const missing = [target.node, target.hookBin, launcherOf(target.hookBin)].find((file) => !existsSync(file));
    if (missing) return [`${event}: ${missing} does not exist, so the hook only warns and recap checks nothing`];
    if (!executable(target.node)) return [`${event}: ${target.node} is not executable, so the hook only warns and recap checks nothing`];
    if (typeof entry.timeout !== 'number' || entry.timeout < TIMEOUT_MS) return [`${event}: a timeout under ${TIMEOUT_MS} ms can let a call through before recap answers`];
    const given = entry.env !== null && typeof entry.env === 'object' ? (entry.env as Record<string, unknown>) : {};
    const differs = Object.entries(environment).filter(([key, value]) => given[key] !== value);
    if (differs.length > 0) {
      const [key, value] = differs[0]!;
      return [`${event}: its environment sets ${key}=${JSON.stringify(given[key] ?? '(unset)')}, not ${JSON.stringify(value)} as here`];
    }
    return [];
  });
  if (problems.length > 0) return { name, ok: false, detail: problems.join('; '), fix: FIX };
  return { name, ok: true, detail: `extension ${paths.dir}: ${RECAP_EVENTS.map((e) => e.event).join(', ')}; its hooks run in trusted and untrusted folders` };
}

function executable(file: string): boolean {
  try {
    accessSync(file, fs.X_OK);
    return true;
  } catch {
    return false;
  }
}

type Settings = Record<string, unknown>;
type Read = Parsed<Settings>;

/** The settings Gemini CLI merges: the system's, the user's, the project's (in a trusted folder). */
function settingsFiles(project: string, env: NodeJS.ProcessEnv, home: string): string[] {
  const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || '/etc/gemini-cli/settings.json';
  return [...new Set([system, join(geminiDir(env, home), 'settings.json'), join(project, '.gemini', 'settings.json')])];
}

/** A settings file as Gemini CLI reads it (JSON with comments); {} when there is none. */
const readSettings = (file: string): Read => readJsonObject(file, { comments: true }) ?? { ok: true, value: {}, comments: false };

const objectAt = (value: unknown, ...keys: string[]): Record<string, unknown> | undefined => {
  let at = value;
  for (const key of keys) at = at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  return at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>) : undefined;
};

type Group = { matcher?: unknown; hooks: { name?: unknown; command?: unknown; timeout?: unknown; env?: unknown }[] };

function groupsOf(hooks: unknown, event: string): Group[] {
  const groups = objectAt({ hooks }, 'hooks')?.[event];
  return Array.isArray(groups) ? groups.filter((g): g is Group => g !== null && typeof g === 'object' && Array.isArray((g as Group).hooks)) : [];
}

/** The events whose settings hooks run recap-hook for gemini. */
function recapHooksIn(settings: Settings): string[] {
  const hooks = objectAt(settings, 'hooks') ?? {};
  return Object.keys(hooks).filter((event) => groupsOf(hooks, event).some((g) => g.hooks.some((h) => runsRecapHook(h?.command))));
}

/** Whatever keeps recap's hooks from running, or runs recap-hook another way. */
function runsCheck(
  paths: ExtensionPaths,
  project: string,
  env: NodeJS.ProcessEnv,
  home: string,
  settings: { file: string; read: Read }[],
  inSettings: { file: string; event: string }[],
): Check {
  const problems: string[] = [];
  if (sandboxOn(env.GEMINI_SANDBOX)) problems.push(`Gemini CLI's sandbox is on (GEMINI_SANDBOX=${env.GEMINI_SANDBOX}): ${SANDBOX}`);
  const dotenv = envFileFor(project, env.GEMINI_CLI_HOME || home);
  if (dotenv !== undefined) problems.push(...dotenvProblems(dotenv, env));
  for (const { file, read } of settings) {
    if (!read.ok) {
      problems.push(read.problem);
      continue;
    }
    const config = objectAt(read.value, 'hooksConfig');
    if (config?.enabled === false) problems.push(`hooks are switched off (hooksConfig.enabled: false in ${file})`);
    if (Array.isArray(config?.disabled) && config.disabled.includes(HOOK_NAME)) problems.push(`hooksConfig.disabled in ${file} switches off the hooks named ${HOOK_NAME}`);
    if (objectAt(read.value, 'admin', 'extensions')?.enabled === false) problems.push(`extensions are switched off (admin.extensions.enabled: false in ${file})`);
    if (sandboxOn(objectAt(read.value, 'tools')?.sandbox)) problems.push(`Gemini CLI's sandbox is on (tools.sandbox in ${file}): ${SANDBOX}`);
    const allowed = objectAt(read.value, 'security')?.allowedExtensions;
    if (Array.isArray(allowed) && allowed.length > 0) problems.push(`security.allowedExtensions in ${file} loads only extensions installed from allowed sources, not recap's`);
  }
  const files = [...new Set(inSettings.map((s) => s.file))];
  for (const file of files) {
    const events = inSettings.filter((s) => s.file === file).map((s) => s.event);
    problems.push(`${file} runs recap-hook from its own hooks (${events.join(', ')}): they run only in trusted folders, and beside the extension twice; remove them`);
  }
  if (isDisabledFor(paths, project)) problems.push(`${join(paths.extensions, 'extension-enablement.json')} disables recap in ${project}`);
  for (const other of namesakes(paths)) problems.push(`${other} also calls itself "${EXTENSION_NAME}": Gemini CLI refuses to start`);
  if (problems.length > 0) return { name: 'gemini runs', ok: false, detail: problems.join('; '), fix: fixFor(problems) };
  return { name: 'gemini runs', ok: true, detail: "no setting switches recap's hooks off" };
}

const SANDBOX = "its hooks then run inside the sandbox, where recap's files and socket need not be (recap does not support it)";

/** tools.sandbox or GEMINI_SANDBOX: true, a command (docker, podman, ...), or {enabled: true}. */
function sandboxOn(value: unknown): boolean {
  if (typeof value === 'string') return !['', 'false', '0'].includes(value.trim().toLowerCase());
  if (value !== null && typeof value === 'object') return (value as { enabled?: unknown }).enabled === true;
  return value === true;
}

/**
 * What a .env file Gemini CLI reads sets that recap cannot live with: another home for the CLI
 * (its extensions, recap's among them, are looked for there), or code loaded into every
 * command of its shell tool (recap's launcher among them). The CLI takes a variable from the
 * file only when the environment does not have it.
 */
function dotenvProblems(file: string, env: NodeJS.ProcessEnv): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const problems: string[] = [];
  for (const match of text.matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/gm)) {
    const name = match[1];
    const value = (match[2] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2');
    if (name === undefined || env[name] !== undefined) continue;
    if (name === 'GEMINI_CLI_HOME') problems.push(`${file} sets GEMINI_CLI_HOME: in a trusted folder Gemini CLI then looks for its extensions there, and recap's hooks do not run`);
    const loads = name === 'NODE_OPTIONS' ? /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)\b/.test(value) : LOADERS.includes(name);
    if (loads) problems.push(`${file} sets ${name}, which loads code into every command of Gemini CLI's shell tool in a trusted folder, recap's own launcher among them`);
    if (SHELL_TRACE.includes(name)) problems.push(`${file} sets ${name}, which makes bash print into what every command of Gemini CLI's shell tool says, in a trusted folder`);
  }
  return problems;
}

/**
 * The .env file Gemini CLI reads into its environment in a trusted folder: the first of
 * .gemini/.env and .env from the project up to the root, then ~/.gemini/.env and ~/.env.
 */
function envFileFor(project: string, home: string): string | undefined {
  const candidates: string[] = [];
  for (let dir = project; ; dir = dirname(dir)) {
    candidates.push(join(dir, '.gemini', '.env'), join(dir, '.env'));
    if (dirname(dir) === dir) break;
  }
  candidates.push(join(home, '.gemini', '.env'), join(home, '.env'));
  return candidates.find((file) => existsSync(file));
}

function fixFor(problems: string[]): string {
  if (problems.some((p) => p.includes('extension-enablement.json'))) return `gemini extensions enable ${EXTENSION_NAME}, and correct the settings named`;
  return 'correct the settings named, then start a new Gemini CLI session';
}

/** Gemini CLI's enablement rules for recap (the last matching rule wins); a rule ending in * takes subfolders. */
function isDisabledFor(paths: ExtensionPaths, project: string): boolean {
  let rules: unknown;
  try {
    rules = (JSON.parse(readFileSync(join(paths.extensions, 'extension-enablement.json'), 'utf8')) as Record<string, { overrides?: unknown }>)[EXTENSION_NAME]?.overrides;
  } catch {
    return false;
  }
  if (!Array.isArray(rules)) return false;
  const path = `${project.startsWith('/') ? '' : '/'}${project}${project.endsWith('/') ? '' : '/'}`;
  let enabled = true;
  for (const rule of rules) {
    if (typeof rule !== 'string') continue;
    const disable = rule.startsWith('!');
    const base = disable ? rule.slice(1) : rule;
    const pattern = base.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/(\/?)\*/g, '($1.*)?');
    if (new RegExp(`^${pattern}$`).test(path)) enabled = !disable;
  }
  return !enabled;
}
