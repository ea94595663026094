// recap's entries in Claude Code's settings.json: added next to whatever else is there,
// recognised again to be replaced or removed, and nothing else touched.
import { commandWords, recapHookCommand, recapHooksOf, runsRecapHook, withoutRecapHooks, type HooksObject } from '../hookCommand.js';

/** `block`: Claude Code (2.1.295 and later) denies the call when the hook fails. */
type OnFailure = { onFailure?: 'block' };
export type HookEntry =
  ({ type: 'command'; command: string; timeout: number } & OnFailure) | ({ type: 'http'; url: string; headers: Record<string, string>; timeout: number } & OnFailure);

export type Settings = HooksObject;

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
  // Before Claude Code compacts (auto or /compact): its answer asks Claude's summary to keep
  // the newest recap summary's decisions, directives and files. Never fails closed: a
  // blocked auto-compaction comes again on every step until the turn fails.
  { event: 'PreCompact' },
  // Claude Code's own summary of a compacted conversation, kept for the audit.
  { event: 'PostCompact' },
  // The session's end (exit, /clear, the end of a -p run): its report goes on record. It
  // blocks nothing, so it never fails closed.
  { event: 'SessionEnd' },
];

const TIMEOUT_SECONDS = 10;

/** A recap hook: the recap-hook executable for claude (alone, as older installs wrote it, or after the absolute Node that runs it), or recap's loopback endpoint. */
export function isRecapHook(hook: unknown): hook is HookEntry {
  if (hook === null || typeof hook !== 'object') return false;
  const { type, command, url } = hook as { type?: unknown; command?: unknown; url?: unknown };
  if (type === 'command') return runsRecapHook(command, 'claude');
  if (type === 'http' && typeof url === 'string') return /^http:\/\/127\.0\.0\.1:\d+\/hooks\/claude$/.test(url);
  return false;
}

export function commandHook(hookBin: string, node = process.execPath): HookEntry {
  return { type: 'command', command: recapHookCommand('claude', hookBin, node), timeout: TIMEOUT_SECONDS };
}

/**
 * The hook as a project's shared settings.json has it: a file meant to be committed names no
 * path of this machine, only the bin on PATH that every install of recap puts there.
 */
export const PORTABLE_COMMAND = 'recap-hook claude';

export function portableCommandHook(): HookEntry {
  return { type: 'command', command: PORTABLE_COMMAND, timeout: TIMEOUT_SECONDS };
}

/** The executable words of a command hook: [node, bundle] for new installs, [bundle] for old ones. */
export const hookCommandWords = (command: string): string[] => commandWords(command, 'claude');

export function httpHook(url: string, token: string): HookEntry {
  return { type: 'http', url, headers: { Authorization: `Bearer ${token}` }, timeout: TIMEOUT_SECONDS };
}

/** Settings without any recap hook; groups and events that only recap's hooks filled are dropped. */
export const withoutRecap = (settings: Settings): Settings => withoutRecapHooks(settings, isRecapHook);

/**
 * Settings with recap's hooks: `entryFor` gives the entry for each event (or none);
 * `failClosed` puts `onFailure: "block"` on the gate's hook.
 */
export function withRecap(settings: Settings, entryFor: (event: string) => HookEntry | undefined, failClosed = true): Settings {
  const base = withoutRecap(settings);
  const hooks: Record<string, unknown> = { ...(base.hooks ?? {}) };
  for (const { event, matcher, failClosed: blocks } of RECAP_EVENTS) {
    const found = entryFor(event);
    if (!found) continue;
    const entry: HookEntry = failClosed && blocks ? { ...found, onFailure: 'block' } : found;
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...groups, { ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] }];
  }
  return { ...base, hooks };
}

/** Which events have a recap hook, and of which type. */
export const recapHooksIn = (settings: Settings): { event: string; hook: HookEntry }[] => recapHooksOf(settings, isRecapHook).map(({ event, hook }) => ({ event, hook }));
