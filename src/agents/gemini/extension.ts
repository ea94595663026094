// recap's Gemini CLI extension, ~/.gemini/extensions/recap: gemini-extension.json and
// hooks/hooks.json, written by hand (`gemini extensions install` would write trust entries).
// An extension's hooks run in untrusted folders too, where settings hooks do not.
import { join } from 'node:path';
import { geminiDir } from './facts.js';
import { launcherOf } from '../hookCommand.js';

export const EXTENSION_NAME = 'recap';
/** How recap knows the folder is its own: no user writes this description. */
export const EXTENSION_DESCRIPTION = "recap's hooks: written by `recap install gemini`, removed by `recap uninstall gemini`.";
/** The hooks' name in Gemini CLI (`hooksConfig.disabled` and /hooks name them by it). */
export const HOOK_NAME = 'recap';

/**
 * In milliseconds: comfortably above recap-hook's own deadline (8 s, RECAP_HOOK_DEADLINE_MS),
 * so recap-hook always answers first. A timeout lets the call through.
 */
export const TIMEOUT_MS = 15_000;

/** The hook events recap listens to, with the matcher each needs (tool events: a regex on the tool name). */
export const RECAP_EVENTS: readonly { event: string; matcher?: string }[] = [
  { event: 'SessionStart' },
  { event: 'BeforeAgent' },
  { event: 'BeforeTool', matcher: '*' },
  // The user's answers to the model's questions are interactions too.
  { event: 'AfterTool', matcher: '^ask_user$' },
  // The session's end (exit, -p too, and /clear): its report goes on record. Every reason: no matcher.
  { event: 'SessionEnd' },
];

export type ExtensionPaths = { dir: string; manifest: string; hooks: string; extensions: string };

export function extensionPaths(env: NodeJS.ProcessEnv, home: string): ExtensionPaths {
  const extensions = join(geminiDir(env, home), 'extensions');
  const dir = join(extensions, EXTENSION_NAME);
  return { dir, manifest: join(dir, 'gemini-extension.json'), hooks: join(dir, 'hooks', 'hooks.json'), extensions };
}

export type HookEntry = { type: 'command'; name: string; command: string; timeout: number; env: Record<string, string> };
export type HooksFile = { hooks: Record<string, { matcher?: string; hooks: HookEntry[] }[]> };

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * The command every hook runs. A missing command would deny every tool call and block every
 * prompt (Gemini CLI reads exit 127 as a deny), so the command line always exists: it runs
 * recap's launcher (bin/recap-hook.sh, beside the bundle) with this Node, all by absolute path,
 * while the bundle and Node are there, and otherwise says so and lets the call go on (what
 * Gemini CLI does with a hook that times out anyway).
 */
export function hookCommand(hookBin: string, node: string, extensionDir: string): string {
  const gone = {
    systemMessage:
      `recap: its hook (${node} ${hookBin}) is gone, so recap checks nothing here. ` + `Run recap install gemini again, or remove ${extensionDir} if recap is uninstalled.`,
  };
  const launcher = launcherOf(hookBin);
  return `[ -f ${shellQuote(hookBin)} ] && [ -x ${shellQuote(node)} ] && exec /bin/sh ${shellQuote(launcher)} ${shellQuote(node)} gemini; printf '%s\\n' ${shellQuote(JSON.stringify(gone))}`;
}

/** The Node and the bundle a recap hook command runs (through the launcher, or directly as older installs did), or undefined when it is none of recap's. */
export function commandTarget(command: string): { node: string; hookBin: string } | undefined {
  const word = `'((?:[^']|'\\\\'')*)'`;
  const unquote = (text: string) => text.replaceAll("'\\''", "'");
  const launched = new RegExp(`^\\[ -f ${word} \\] && \\[ -x ${word} \\] && exec /bin/sh ${word} ${word} gemini;`).exec(command);
  if (launched) {
    const [hookBin, node, launcher, launchedNode] = launched.slice(1, 5).map((w) => unquote(w!));
    return launcher === launcherOf(hookBin!) && launchedNode === node ? { node: node!, hookBin: hookBin! } : undefined;
  }
  const match = new RegExp(`exec ${word} ${word} gemini;`).exec(command);
  if (!match) return undefined;
  return { node: unquote(match[1]!), hookBin: unquote(match[2]!) };
}

/** A command that runs recap-hook for gemini, in any form (recap's own, or written by hand into settings). */
export function runsRecapHook(command: unknown): boolean {
  return typeof command === 'string' && (commandTarget(command) !== undefined || /recap-hook(?:\.c?js)?['"]?\s+(?:--agent\s+)?gemini\b/.test(command));
}

// The environment the extension's hooks run with (the project's .env reaches them): shared
// with Qwen Code's hooks.
export { hookEnvironment, LOADERS, SHELL_TRACE } from '../hookEnvironment.js';

export function hooksFile(hookBin: string, node: string, extensionDir: string, environment: Record<string, string>): HooksFile {
  const entry: HookEntry = { type: 'command', name: HOOK_NAME, command: hookCommand(hookBin, node, extensionDir), timeout: TIMEOUT_MS, env: environment };
  return { hooks: Object.fromEntries(RECAP_EVENTS.map(({ event, matcher }) => [event, [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] }]])) };
}

export function manifest(version: string): Record<string, string> {
  return { name: EXTENSION_NAME, version, description: EXTENSION_DESCRIPTION };
}
