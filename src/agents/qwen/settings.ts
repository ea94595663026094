// recap's entries in Qwen Code's settings.json: added next to whatever else is there,
// recognised again to be replaced or removed, and nothing else touched. Qwen Code reads its
// settings as JSON with comments; recap reads them the same way.
import { commandWords, recapHookCommand, recapHooksOf, runsRecapHook, withoutRecapHooks, type HooksObject } from '../hookCommand.js';

export type HookEntry = { type: 'command'; name?: string; command: string; timeout?: unknown; env?: unknown };

export type Settings = HooksObject;

/**
 * The hook events recap listens to, with the matcher each needs. PostToolUse only on
 * ask_user_question: the user's answers are an interaction; every other tool's result is not.
 */
export const RECAP_EVENTS: readonly { event: string; matcher?: string }[] = [
  { event: 'PreToolUse', matcher: '*' },
  { event: 'PostToolUse', matcher: 'ask_user_question' },
  { event: 'UserPromptSubmit' },
  { event: 'SessionStart' },
  // Before Qwen Code compresses its conversation (on its own or /compress): the answer asks
  // its summary to keep the newest recap summary's decisions, directives and files. Every
  // trigger: no matcher.
  { event: 'PreCompact' },
  // The session's end (/quit; a -p run sends none): its report goes on record.
  { event: 'SessionEnd' },
];

/**
 * Seconds. Qwen Code lets the call through when a hook times out, whatever it printed:
 * recap-hook answers within 8 s (its own deadline, a deny on a tripped job included), and
 * this leaves room for a slow Node start on a loaded machine.
 */
export const TIMEOUT_SECONDS = 20;

/** recap-hook's own deadline: a timeout at or under it would cut a deny off. */
export const HOOK_DEADLINE_MS = 8000;

/** The hook's timeout in milliseconds as Qwen Code reads it: seconds, or milliseconds from 1000 up; 60 s unset. */
export function timeoutMs(timeout: unknown): number | undefined {
  if (timeout === undefined) return 60_000;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) return undefined;
  return timeout >= 1000 ? timeout : timeout * 1000;
}

/** A recap hook: the recap-hook executable for qwen, alone or after the absolute Node that runs it. */
export function isRecapHook(hook: unknown): hook is HookEntry {
  if (hook === null || typeof hook !== 'object') return false;
  const { type, command } = hook as { type?: unknown; command?: unknown };
  return type === 'command' && runsRecapHook(command, 'qwen');
}

/**
 * `env` is the environment Qwen Code lays over its own for the hook (hookEnvironment): Qwen
 * Code reads a project's .env, which the agent may write, into its hooks' environment, so a
 * RECAP_SOCKET or RECAP_DATA_DIR there would send recap-hook to a daemon of its own with an
 * empty log.
 */
export function commandHook(hookBin: string, node = process.execPath, env?: Record<string, string>): HookEntry {
  return { type: 'command', name: 'recap', command: recapHookCommand('qwen', hookBin, node), timeout: TIMEOUT_SECONDS, ...(env !== undefined ? { env } : {}) };
}

/** The executable words of a command hook: [node, bundle], or [bundle] alone. */
export const hookCommandWords = (command: string): string[] => commandWords(command, 'qwen');

/** Settings without any recap hook; groups and events that only recap's hooks filled are dropped. */
export const withoutRecap = (settings: Settings): Settings => withoutRecapHooks(settings, isRecapHook);

/** Settings with recap's hooks, one group of its own per event, after the user's. */
export function withRecap(settings: Settings, entry: HookEntry): Settings {
  const base = withoutRecap(settings);
  const hooks: Record<string, unknown> = { ...(base.hooks ?? {}) };
  for (const { event, matcher } of RECAP_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...groups, { ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] }];
  }
  return { ...base, hooks };
}

/** Every recap hook, with its event and its group's matcher. */
export const recapHooksIn = (settings: Settings): { event: string; matcher: unknown; hook: HookEntry }[] => recapHooksOf(settings, isRecapHook);

/** Whether a matcher matches every tool, as Qwen Code reads it: `*`, empty, `.*` or none. */
export function matchesAll(matcher: unknown): boolean {
  return matcher === undefined || matcher === '' || matcher === '*' || matcher === '.*';
}
