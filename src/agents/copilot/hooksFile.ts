// recap's hooks file for GitHub Copilot CLI (`$COPILOT_HOME/hooks/recap.json`, a file of
// recap's own) and the one command in it. Copilot CLI denies every tool call, the way out
// included, when a tool hook exits non-zero or its command is not found: so the command
// checks that recap-hook and its Node are there and ends with exit 0 whatever happens.
// recap-hook answers a deny as JSON on stdout, never through its exit code.

/** The events recap installs: the PascalCase dialect, in which a top-level deny and context both work. */
export const RECAP_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'SessionEnd'] as const;

/**
 * Seconds; Copilot CLI's own default, written out. A hook it times out lets the call run:
 * recap-hook answers within its 8 s deadline, a deny on a tripped job included, and this
 * leaves room for a slow Node start on a loaded machine.
 */
export const TIMEOUT_SECONDS = 30;

/** recap-hook's own deadline: a timeout at or under it would cut a deny off. */
export const HOOK_DEADLINE_SECONDS = 8;

export type HookEntry = { type: 'command'; bash: string; timeoutSec?: unknown; matcher?: unknown; [key: string]: unknown };
export type HooksFile = { version?: unknown; hooks?: Record<string, unknown>; [key: string]: unknown };

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * What the command prints when recap-hook was killed by a signal before it answered: a deny,
 * since a kill (the agent's `pkill -9 node`, say) must not be an allow. The user's way out
 * is denied too while that goes on; `recap doctor` finds the cause.
 */
const KILLED = JSON.stringify({
  permissionDecision: 'deny',
  permissionDecisionReason: 'recap: recap-hook was killed before it answered, so this call is denied. If this goes on, ask the user to run: recap doctor',
});

/** recap's launcher (bin/recap-hook.sh, beside the bundle `h`), handed the Node `n`; older installs ran `"$n" "$h"`. */
const LAUNCH = '/bin/sh "${h%/*}/recap-hook.sh" "$n"';

/**
 * `recap-hook copilot` through recap's launcher, with this Node, all by absolute path. When either is gone (recap
 * uninstalled with npm, moved, an upgrade half done, Node replaced) the command prints
 * nothing and exits 0: the call runs unchecked, where a missing command would have every
 * call denied, the user's way out of Copilot CLI included. recap-hook says deny on stdout and
 * exits 0; any other exit of its own (a crash at load) stays an exit 0, and a kill by a
 * signal (128 and up) prints a deny.
 */
export function recapCommand(hookBin: string, node = process.execPath): string {
  return `h=${quote(hookBin)}; n=${quote(node)}; [ -f "$h" ] && [ -x "$n" ] || exit 0; ${LAUNCH} copilot; [ $? -lt 128 ] || printf '%s' ${quote(KILLED)}; exit 0`;
}

const UNQUOTED = (q: string) => q.slice(1, -1).replaceAll("'\\''", "'");
const TAIL = `; [ $? -lt 128 ] || printf '%s' ${quote(KILLED)}; exit 0`;
const COMMAND =
  /^h=('(?:[^']|'\\'')*'); n=('(?:[^']|'\\'')*'); \[ -f "\$h" \] && \[ -x "\$n" \] \|\| exit 0; (?:"\$n" "\$h"|\/bin\/sh "\$\{h%\/\*\}\/recap-hook\.sh" "\$n") copilot(.*)$/s;

/** The recap-hook bundle and the Node a command of recap's names, or undefined for any other command. */
export function commandPaths(command: unknown): { hook: string; node: string } | undefined {
  if (typeof command !== 'string') return undefined;
  const match = COMMAND.exec(command);
  return match && match[3] === TAIL ? { hook: UNQUOTED(match[1]!), node: UNQUOTED(match[2]!) } : undefined;
}

/** Any command that runs recap-hook for copilot, recap's own form or one written by hand. */
export function runsRecapHook(command: unknown): boolean {
  return typeof command === 'string' && (commandPaths(command) !== undefined || /recap-hook(?:\.c?js)?['"]?\s+copilot\b/.test(command));
}

/** An entry of recap's: a command entry (either layout Copilot CLI reads) running recap-hook for copilot. */
export function isRecapEntry(entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object') return false;
  const { bash, command } = entry as { bash?: unknown; command?: unknown };
  return runsRecapHook(bash) || runsRecapHook(command);
}

export function recapEntry(command: string): HookEntry {
  return { type: 'command', bash: command, timeoutSec: TIMEOUT_SECONDS };
}

/** The hooks file as recap writes it: one entry per event, no matcher (every tool). */
export function recapHooksFile(command: string): HooksFile {
  return { version: 1, hooks: Object.fromEntries(RECAP_EVENTS.map((event) => [event, [recapEntry(command)]])) };
}

/**
 * Every entry running recap-hook for copilot in a hooks object (a hooks file's, settings.json's
 * or a plugin's), with its event: Copilot CLI's flat layout, or Claude Code's groups.
 */
export function recapEntriesIn(file: unknown): { event: string; entry: HookEntry; matcher?: unknown }[] {
  const hooks = (file as HooksFile | null)?.hooks;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return [];
  const found: { event: string; entry: HookEntry; matcher?: unknown }[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      if (isRecapEntry(entry)) found.push({ event, entry: entry as HookEntry, matcher: (entry as HookEntry).matcher });
      const nested = (entry as { hooks?: unknown } | null)?.hooks;
      if (Array.isArray(nested)) {
        for (const inner of nested) if (isRecapEntry(inner)) found.push({ event, entry: inner as HookEntry, matcher: (entry as { matcher?: unknown }).matcher });
      }
    }
  }
  return found;
}

/** The file without recap's entries (either layout); events only recap's filled are dropped. */
export function withoutRecap(file: HooksFile): HooksFile {
  if (file.hooks === null || typeof file.hooks !== 'object' || Array.isArray(file.hooks)) return file;
  const hooks: Record<string, unknown> = {};
  for (const [event, entries] of Object.entries(file.hooks)) {
    if (!Array.isArray(entries)) {
      hooks[event] = entries;
      continue;
    }
    const kept = (entries as unknown[]).flatMap((entry) => {
      if (isRecapEntry(entry)) return [];
      const nested = (entry as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(nested)) return [entry];
      const others = nested.filter((inner) => !isRecapEntry(inner));
      if (others.length === nested.length) return [entry];
      return others.length > 0 ? [{ ...(entry as object), hooks: others }] : [];
    });
    if (kept.length > 0 || entries.length === 0) hooks[event] = kept;
  }
  return { ...file, hooks };
}

/** Whether a hooks file holds any hook at all. */
export const hasHooks = (file: HooksFile): boolean =>
  file.hooks !== undefined && file.hooks !== null && typeof file.hooks === 'object' && Object.values(file.hooks).some((e) => !Array.isArray(e) || e.length > 0);

/** Whether a matcher lets every tool through: none, empty, `*` or `.*`. */
export const matchesAll = (matcher: unknown): boolean => matcher === undefined || matcher === '' || matcher === '*' || matcher === '.*';
