// recap's entries in Claude Code's settings.json: added next to whatever else is there,
// recognised again to be replaced or removed, and nothing else touched.

/** `block`: Claude Code (2.1.295 and later) denies the call when the hook fails. */
type OnFailure = { onFailure?: 'block' };
export type HookEntry =
  | ({ type: 'command'; command: string; timeout: number } & OnFailure)
  | ({ type: 'http'; url: string; headers: Record<string, string>; timeout: number } & OnFailure);

type Group = { matcher?: string; hooks: unknown[] };
export type Settings = Record<string, unknown> & { hooks?: Record<string, unknown> };

/**
 * The hook events recap listens to, with the matcher each needs. Only the gate's own event
 * fails closed: a failing PreToolUse hook must deny, not wave the tool through. Never on
 * UserPromptSubmit (a failure there drops the user's prompt) nor SessionStart (it blocks
 * nothing); those run on the user's own actions and start a dead daemon again.
 */
export const RECAP_EVENTS: readonly { event: string; matcher?: string; failClosed?: true }[] = [
  { event: 'PreToolUse', matcher: '*', failClosed: true },
  { event: 'PostToolUse', matcher: 'AskUserQuestion' },
  { event: 'UserPromptSubmit' },
  { event: 'SessionStart' },
];

const TIMEOUT_SECONDS = 10;

/**
 * A recap hook: the recap-hook executable for claude (alone, as older installs wrote it, or
 * after the absolute Node that runs it), or recap's loopback endpoint.
 */
export function isRecapHook(hook: unknown): boolean {
  if (hook === null || typeof hook !== 'object') return false;
  const { type, command, url } = hook as { type?: unknown; command?: unknown; url?: unknown };
  if (type === 'command' && typeof command === 'string') return /(?:^|\/|['"])recap-hook(\.c?js)?['"]? claude$/.test(command);
  if (type === 'http' && typeof url === 'string') return /^http:\/\/127\.0\.0\.1:\d+\/hooks\/claude$/.test(url);
  return false;
}

const shellQuote = (path: string) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`);

/**
 * The bundle run by this Node, both by absolute path: with `#!/usr/bin/env node` a `node`
 * written into a folder early on PATH would switch every hook off.
 */
export function commandHook(hookBin: string, node = process.execPath): HookEntry {
  return { type: 'command', command: `${shellQuote(node)} ${shellQuote(hookBin)} claude`, timeout: TIMEOUT_SECONDS };
}

/** The executable words of a command hook: [node, bundle] for new installs, [bundle] for old ones. */
export function hookCommandWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.replace(/ claude$/, '').matchAll(/'((?:[^']|'\\'')*)'|"([^"]*)"|(\S+)/g)) {
    words.push((match[1]?.replaceAll("'\\''", "'") ?? match[2] ?? match[3])!);
  }
  return words;
}

export function httpHook(url: string, token: string): HookEntry {
  return { type: 'http', url, headers: { Authorization: `Bearer ${token}` }, timeout: TIMEOUT_SECONDS };
}

/** Settings without any recap hook; groups and events that only recap's hooks filled are dropped. */
export function withoutRecap(settings: Settings): Settings {
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
      const others = g.hooks.filter((h) => !isRecapHook(h));
      if (others.length === g.hooks.length) return [group];
      return others.length > 0 ? [{ ...g, hooks: others }] : [];
    });
    if (remaining.length > 0 || groups.length === 0) kept[event] = remaining;
    else emptied = true;
  }
  if (Object.keys(kept).length > 0 || !emptied) return { ...settings, hooks: kept };
  const { hooks: _dropped, ...rest } = settings;
  return rest;
}

/** Settings with recap's hooks: `entryFor` gives the entry for each event (or none). */
export function withRecap(settings: Settings, entryFor: (event: string) => HookEntry | undefined): Settings {
  const base = withoutRecap(settings);
  const hooks: Record<string, unknown> = { ...(base.hooks ?? {}) };
  for (const { event, matcher, failClosed } of RECAP_EVENTS) {
    const found = entryFor(event);
    if (!found) continue;
    const entry: HookEntry = failClosed ? { ...found, onFailure: 'block' } : found;
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...groups, { ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] }];
  }
  return { ...base, hooks };
}

/** Which events have a recap hook, and of which type. */
export function recapHooksIn(settings: Settings): { event: string; hook: HookEntry }[] {
  const found: { event: string; hook: HookEntry }[] = [];
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups as Group[]) {
      for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) if (isRecapHook(hook)) found.push({ event, hook: hook as HookEntry });
    }
  }
  return found;
}
