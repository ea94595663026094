// recap's hook command and its place in a hooks object shaped as Claude Code, Codex and Qwen
// Code all shape theirs (`{"hooks": {"<Event>": [{"matcher": ..., "hooks": [handler]}]}}`):
// the command written, recognised again, read back, and removed without touching the rest.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const shellQuote = (path: string) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`);

/** bin/recap-hook.sh, beside the recap-hook bundle: the launcher every installed hook command runs. */
export const launcherOf = (hookBin: string): string => join(dirname(hookBin), 'recap-hook.sh');

/**
 * The launcher, run by /bin/sh (no execute bit, no `#!` looked up), handed the Node that runs
 * recap-hook when the daemon cannot answer it: both by absolute path, since a `node` written
 * into a folder early on PATH would switch every hook off.
 */
export function recapHookCommand(agent: string, hookBin: string, node = process.execPath): string {
  return `/bin/sh ${shellQuote(launcherOf(hookBin))} ${shellQuote(node)} ${agent}`;
}

const WORD = `(?:'(?:[^']|'\\\\'')*'|"[^"]*"|\\S+)`;

/**
 * Whether a command runs recap-hook for `agent`: through the launcher, or, as older installs
 * wrote it, the bundle alone or after the Node that runs it.
 */
export function runsRecapHook(command: unknown, agent: string): command is string {
  return (
    typeof command === 'string' &&
    (new RegExp(`(?:^|/|['"])recap-hook(?:\\.c?js)?['"]? ${agent}$`).test(command) || new RegExp(`(?:^|/|['"])recap-hook\\.sh['"]? ${WORD} ${agent}$`).test(command))
  );
}

/** The executable words of recap's command: [/bin/sh, launcher, node] now, [node, bundle] or [bundle] for older installs. */
export function commandWords(command: string, agent: string): string[] {
  const words: string[] = [];
  for (const match of command.replace(new RegExp(` ${agent}$`), '').matchAll(/'((?:[^']|'\\'')*)'|"([^"]*)"|(\S+)/g)) {
    words.push((match[1]?.replaceAll("'\\''", "'") ?? match[2] ?? match[3])!);
  }
  return words;
}

/**
 * What is wrong with recap's command as written: a file it names is gone, or it does not name
 * Node by absolute path (`#!/usr/bin/env node` finds Node on PATH: a node written early on PATH
 * would switch the hook off).
 */
export function commandProblem(command: string, agent: string): string | undefined {
  const words = commandWords(command, agent);
  const missing = words.find((w) => !existsSync(w));
  if (missing) return `${missing} does not exist`;
  const node = words[0] === '/bin/sh' ? words[2] : words[0];
  if (words.length < 2 || node === undefined || !node.startsWith('/')) return `the command does not name node by absolute path; run recap install ${agent} again`;
  return undefined;
}

export type HooksObject = Record<string, unknown> & { hooks?: Record<string, unknown> };
type Group = { matcher?: unknown; hooks: unknown[] };

/** The object without any handler `isRecap` knows; groups and events that only recap's filled are dropped. */
export function withoutRecapHooks<T extends HooksObject>(settings: T, isRecap: (handler: unknown) => boolean): T {
  const hooks = settings.hooks;
  if (hooks === undefined || hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return settings;
  const kept: Record<string, unknown> = {};
  let emptied = false;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const remaining = groups.flatMap((group: unknown) => {
      const g = group as Group;
      if (g === null || typeof g !== 'object' || !Array.isArray(g.hooks)) return [group];
      const others = g.hooks.filter((h) => !isRecap(h));
      if (others.length === g.hooks.length) return [group];
      return others.length > 0 ? [{ ...g, hooks: others }] : [];
    });
    if (remaining.length > 0 || groups.length === 0) kept[event] = remaining;
    else emptied = true;
  }
  if (Object.keys(kept).length > 0 || !emptied) return { ...settings, hooks: kept };
  const { hooks: _dropped, ...rest } = settings;
  return rest as T;
}

/** Every handler `isRecap` knows, with its event and its group's matcher. */
export function recapHooksOf<H>(settings: HooksObject, isRecap: (handler: unknown) => handler is H): { event: string; matcher: unknown; hook: H }[] {
  const found: { event: string; matcher: unknown; hook: H }[] = [];
  const hooks = settings.hooks;
  if (hooks === undefined || hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return found;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups as Group[]) {
      for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) if (isRecap(hook)) found.push({ event, matcher: group.matcher, hook });
    }
  }
  return found;
}
