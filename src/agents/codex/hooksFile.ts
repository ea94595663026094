// recap's entries in a Codex hooks.json: added after the user's own groups, recognised again
// to be replaced or removed, and nothing else touched. Codex keys each handler's trust by
// its place (event, group, handler), so where every handler stands is part of the answer.
import type { CodexGroup, CodexHandler } from './trust.js';
import { commandWords as wordsOf, recapHookCommand, runsRecapHook } from '../hookCommand.js';

export type HooksFile = { hooks?: Record<string, unknown>; description?: unknown };

/**
 * The events recap listens to. SessionStart has no matcher: startup, resume, clear and
 * compact (which drops the context handed over before) all get the memory. The context
 * handlers say additionalContextLimit 0: past 10,000 bytes Codex would otherwise put the
 * text in a file and hand the model a preview.
 */
export const RECAP_EVENTS: readonly { event: string; matcher?: string; contextLimit?: number }[] = [
  { event: 'SessionStart', contextLimit: 0 },
  { event: 'UserPromptSubmit', contextLimit: 0 },
  { event: 'PreToolUse', matcher: '*' },
];
// Not SessionEnd: `codex exec` sends none, and codex-cli 0.169.0 hashes a SessionEnd handler
// otherwise than trust.ts does (its trust entry reads as modified), so Codex would skip it.
// The adapter still reads one, should a user wire it in and trust it themselves.

/**
 * Well past recap-hook's own 8 s deadline (RECAP_HOOK_DEADLINE_MS), which counts from the
 * moment Node has loaded the hook: on a loaded machine Node's start comes on top. A hook
 * Codex times out fails open; recap-hook answers in time and always answers.
 */
export const TIMEOUT_SECONDS = 20;

/** recap-hook for codex, run by this Node: both by absolute path, so no PATH lookup is involved. */
export const recapCommand = (hookBin: string, node = process.execPath): string => recapHookCommand('codex', hookBin, node);

export function recapHandler(event: string, command: string): CodexHandler {
  const contextLimit = RECAP_EVENTS.find((e) => e.event === event)?.contextLimit;
  return { type: 'command', command, timeout: TIMEOUT_SECONDS, ...(contextLimit !== undefined ? { additionalContextLimit: contextLimit } : {}) };
}

/** A handler running recap-hook for codex (after its Node, or alone). */
export function isRecapHandler(handler: unknown): boolean {
  if (handler === null || typeof handler !== 'object') return false;
  const { type, command } = handler as { type?: unknown; command?: unknown };
  return type === 'command' && runsRecapHook(command, 'codex');
}

/** The executable words of recap's command: [node, bundle]. */
export const commandWords = (command: string): string[] => wordsOf(command, 'codex');

const groupsOf = (file: HooksFile, event: string): unknown[] => {
  const groups = file.hooks?.[event];
  return Array.isArray(groups) ? groups : [];
};
const handlersOf = (group: unknown): unknown[] => {
  const hooks = (group as { hooks?: unknown } | null)?.hooks;
  return Array.isArray(hooks) ? hooks : [];
};

/** Every handler and where it stands; `recap` marks recap's own. */
export type Place = { event: string; group: number; handler: number; matcher?: string; entry: unknown; recap: boolean };

export function places(file: HooksFile): Place[] {
  const found: Place[] = [];
  for (const event of Object.keys(file.hooks ?? {})) {
    for (const [g, group] of groupsOf(file, event).entries()) {
      const matcher = (group as { matcher?: unknown } | null)?.matcher;
      for (const [h, entry] of handlersOf(group).entries()) {
        found.push({ event, group: g, handler: h, ...(typeof matcher === 'string' ? { matcher } : {}), entry, recap: isRecapHandler(entry) });
      }
    }
  }
  return found;
}

/** The file without recap's handlers; groups and events only they filled are dropped. */
export function withoutRecap(file: HooksFile): HooksFile {
  if (file.hooks === undefined) return file;
  const hooks: Record<string, unknown> = {};
  let emptied = false;
  for (const [event, groups] of Object.entries(file.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = groups.flatMap((group) => {
      const handlers = handlersOf(group);
      const others = handlers.filter((h) => !isRecapHandler(h));
      if (others.length === handlers.length) return [group];
      return others.length > 0 ? [{ ...(group as object), hooks: others }] : [];
    });
    if (kept.length > 0 || groups.length === 0) hooks[event] = kept;
    else emptied = true;
  }
  if (Object.keys(hooks).length > 0 || !emptied) return { ...file, hooks };
  const { hooks: _dropped, ...rest } = file;
  return rest;
}

const isRecapGroup = (group: unknown) => {
  const handlers = handlersOf(group);
  return handlers.length > 0 && handlers.every(isRecapHandler);
};

/**
 * The file with recap's group for each event: where recap's own group already stands it is
 * replaced there, so no handler of the user's moves; otherwise it goes after the user's
 * groups. recap's handlers anywhere else (an old event, a group the user added to) go.
 */
export function withRecap(file: HooksFile, command: string): HooksFile {
  const hooks: Record<string, unknown> = {};
  const wanted = new Map(RECAP_EVENTS.map((e) => [e.event, e]));
  for (const [event, groups] of Object.entries(file.hooks ?? {})) {
    const spec = wanted.get(event);
    if (!Array.isArray(groups) || spec === undefined) {
      const cleaned = withoutRecap({ hooks: { [event]: groups } }).hooks;
      if (cleaned !== undefined && Object.hasOwn(cleaned, event)) hooks[event] = cleaned[event];
      continue;
    }
    const own = groups.findIndex(isRecapGroup);
    const placed = groups.flatMap((group, index) => {
      if (index === own) return [recapGroup(spec, command)];
      return withoutRecap({ hooks: { [event]: [group] } }).hooks?.[event] ?? [];
    });
    hooks[event] = own === -1 ? [...placed, recapGroup(spec, command)] : placed;
  }
  for (const spec of RECAP_EVENTS) if (!(spec.event in hooks)) hooks[spec.event] = [recapGroup(spec, command)];
  return { ...file, hooks };
}

function recapGroup(spec: (typeof RECAP_EVENTS)[number], command: string): CodexGroup {
  return { ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}), hooks: [recapHandler(spec.event, command)] };
}
