// Claude Code's own sandbox (`recap install claude --sandbox`): its Bash tool then runs under
// bubblewrap (Linux) or Seatbelt (macOS), kept by the kernel out of recap's files, and off
// every Unix socket, recap's among them. Merged into the settings file recap's hooks are in,
// beside the user's own sandbox settings, and taken out again only where recap put it. The same
// settings serve both systems: Claude Code writes the Seatbelt profile from them itself, so
// recap writes none; on macOS its sandbox also lets through the sockets that
// network.allowUnixSockets lists, so a list holding recap's socket is refused too.
import type { Settings } from './settings.js';
import type { SandboxAdded } from '../sandboxRecord.js';

/** What recap asks of the sandbox: on, never silently off, and no command let out of it. */
export const RECAP_SANDBOX = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } as const;

/** recap's paths as the sandbox takes them: absolute, denied to read (and write), or to write. */
export type SandboxPaths = { denyRead: string[]; denyWrite: string[] };

type Json = Record<string, unknown>;
const objectAt = (value: unknown): Json | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * The user's own sandbox settings that would leave the agent's shell a way to recap's files or
 * socket, each with what to do; recap does not install over them.
 */
export function sandboxConflicts(settings: Settings, secret: string[] = []): string[] {
  const raw = (settings as Json).sandbox;
  if (raw === undefined) return [];
  const sandbox = objectAt(raw);
  if (sandbox === undefined) return ['"sandbox" is not an object: fix it'];
  const network = objectAt(sandbox.network);
  const filesystem = objectAt(sandbox.filesystem);
  const found: string[] = [];
  if (sandbox.enabled === false) found.push('sandbox.enabled is false: remove it');
  if (sandbox.failIfUnavailable === false) found.push('sandbox.failIfUnavailable is false, so Claude Code runs commands unsandboxed when the sandbox cannot start: remove it');
  if (sandbox.allowUnsandboxedCommands === true) found.push('sandbox.allowUnsandboxedCommands is true, so the model may run a command outside the sandbox: remove it');
  if (network?.allowAllUnixSockets === true) found.push("sandbox.network.allowAllUnixSockets is true, so sandboxed commands reach recap's socket: remove it");
  if (filesystem?.disabled === true) found.push('sandbox.filesystem.disabled is true, so sandboxed commands read and write every file: remove it');
  const opened = strings(network?.allowUnixSockets).filter((entry) => secret.some((path) => path === entry || path.startsWith(`${entry.replace(/\/+$/, '')}/`)));
  if (opened.length > 0) found.push(`sandbox.network.allowUnixSockets (${opened.join(', ')}) lets sandboxed commands on macOS reach recap's socket: remove them`);
  return found;
}

/** What the user should know of their own sandbox settings beside recap's. */
export function sandboxWarnings(settings: Settings): string[] {
  const excluded = strings(objectAt((settings as Json).sandbox)?.excludedCommands);
  if (excluded.length === 0) return [];
  return [`sandbox.excludedCommands (${excluded.join(', ')}) run outside Claude Code's sandbox, where recap's files and socket are in reach; recap's hook still judges them`];
}

/**
 * The settings with recap's sandbox, and what recap added to them: the keys the user had not
 * set, and the paths not listed yet. Call it on settings without recap's earlier additions
 * (withoutRecapSandbox), so a path recap no longer names goes.
 */
export function withRecapSandbox(settings: Settings, paths: SandboxPaths): { settings: Settings; added: SandboxAdded } {
  const sandbox: Json = { ...(objectAt((settings as Json).sandbox) ?? {}) };
  const keys = Object.keys(RECAP_SANDBOX).filter((key) => sandbox[key] === undefined);
  for (const key of keys) sandbox[key] = RECAP_SANDBOX[key as keyof typeof RECAP_SANDBOX];
  const filesystem: Json = { ...(objectAt(sandbox.filesystem) ?? {}) };
  const added: Record<string, string[]> = {};
  for (const list of ['denyRead', 'denyWrite'] as const) {
    const present = strings(filesystem[list]);
    const missing = [...new Set(paths[list])].filter((path) => !present.includes(path));
    if (missing.length === 0) continue;
    filesystem[list] = [...(Array.isArray(filesystem[list]) ? (filesystem[list] as unknown[]) : []), ...missing];
    added[`filesystem.${list}`] = missing;
  }
  sandbox.filesystem = filesystem;
  return { settings: { ...settings, sandbox } as Settings, added: { keys, paths: added } };
}

/**
 * The settings without what recap added: its keys while they still hold recap's value, its
 * paths; an object left empty by that goes too. Anything of the user's stays.
 */
export function withoutRecapSandbox(settings: Settings, added: SandboxAdded): Settings {
  const before = objectAt((settings as Json).sandbox);
  if (before === undefined) return settings;
  const sandbox: Json = { ...before };
  for (const key of added.keys) {
    if (key in RECAP_SANDBOX && sandbox[key] === RECAP_SANDBOX[key as keyof typeof RECAP_SANDBOX]) delete sandbox[key];
  }
  const filesystem = objectAt(sandbox.filesystem);
  if (filesystem !== undefined) {
    const kept: Json = { ...filesystem };
    for (const [where, paths] of Object.entries(added.paths)) {
      const list = where.replace(/^filesystem\./, '');
      if (!Array.isArray(kept[list])) continue;
      const left = (kept[list] as unknown[]).filter((p) => !(typeof p === 'string' && paths.includes(p)));
      if (left.length > 0) kept[list] = left;
      else delete kept[list];
    }
    if (Object.keys(kept).length > 0) sandbox.filesystem = kept;
    else delete sandbox.filesystem;
  }
  const { sandbox: _dropped, ...rest } = settings as Json;
  return (Object.keys(sandbox).length > 0 ? { ...rest, sandbox } : rest) as Settings;
}

/** What is missing of the sandbox recap configured: [] when it is all there. */
export function sandboxGaps(settings: Settings, paths: SandboxPaths): string[] {
  const sandbox = objectAt((settings as Json).sandbox);
  if (sandbox === undefined) return ['no "sandbox" at all'];
  const gaps = [...sandboxConflicts(settings, paths.denyRead)];
  for (const [key, value] of Object.entries(RECAP_SANDBOX)) if (sandbox[key] !== value) gaps.push(`sandbox.${key} is not ${String(value)}`);
  const filesystem = objectAt(sandbox.filesystem);
  for (const list of ['denyRead', 'denyWrite'] as const) {
    const missing = paths[list].filter((path) => !strings(filesystem?.[list]).includes(path));
    if (missing.length > 0) gaps.push(`sandbox.filesystem.${list} lacks ${missing.join(', ')}`);
  }
  return [...new Set(gaps)];
}

/** Whether a settings object turns Claude Code's sandbox on. */
export const sandboxEnabled = (settings: unknown): boolean => objectAt(objectAt(settings)?.sandbox)?.enabled === true;
