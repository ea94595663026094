// Codex's own sandbox (`recap install codex --sandbox`): `sandbox_mode = "workspace-write"` in
// the user's config.toml. Its shell then writes only the project and the temporary folders
// (Landlock), and reaches no socket at all (seccomp), recap's among them, so the hook runs the
// way out (Codex's adapter always does). config.toml is edited as text: one top-level line
// added, and removed again only when recap added it (sandboxRecord.ts).
import type { Check } from '../../common/check.js';
import { sandboxPaths } from '../recapPaths.js';
import { recordSandbox, sandboxAdded } from '../sandboxRecord.js';
import { InstallError } from '../kit/installError.js';
import { configFile, readConfig, writeThroughLinks } from './install.js';
import { isTable, tomlString, type TomlDocument } from './toml.js';

const MODE = 'workspace-write';
/** The modes that keep Codex's shell out of recap's files and socket: recap's, or the stricter one. */
const CONFINED = new Set([MODE, 'read-only']);

/** The user's own settings that would open the sandbox, each with what to do. */
export function codexSandboxConflicts(doc: TomlDocument, env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  const mode = doc.data.sandbox_mode;
  if (mode !== undefined && !(typeof mode === 'string' && CONFINED.has(mode))) {
    found.push(`sandbox_mode is ${typeof mode === 'string' ? `"${mode}"` : 'not a string'}, which does not keep Codex's shell out of recap's files: remove it`);
  }
  const workspace = doc.data.sandbox_workspace_write;
  if (isTable(workspace)) {
    if (workspace.network_access === true) found.push("[sandbox_workspace_write] network_access = true lets Codex's shell reach recap's socket: remove it");
    const { secret } = sandboxPaths(env);
    const roots = Array.isArray(workspace.writable_roots) ? workspace.writable_roots.filter((r): r is string => typeof r === 'string') : [];
    const opened = roots.filter((root) => secret.some((path) => path === root || path.startsWith(`${root.replace(/\/+$/, '')}/`)));
    if (opened.length > 0) found.push(`[sandbox_workspace_write] writable_roots (${opened.join(', ')}) holds recap's files: take them out`);
  }
  return found;
}

/** config.toml with `sandbox_mode` added after its last top-level key (before any table). */
function withMode(text: string, doc: TomlDocument): string {
  const firstHeader = doc.statements.find((s) => s.kind === 'header');
  const topLevel = doc.statements.filter((s) => s.kind === 'pair' && (firstHeader === undefined || s.start < firstHeader.start)).at(-1);
  const at = topLevel?.end ?? firstHeader?.start ?? text.length;
  const newline = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return `${text.slice(0, at)}${newline}sandbox_mode = ${tomlString(MODE)}\n${text.slice(at)}`;
}

/** config.toml without recap's `sandbox_mode` line, when it still says what recap wrote. */
function withoutMode(text: string, doc: TomlDocument): string {
  const pair = doc.statements.find((s) => s.kind === 'pair' && s.table.length === 0 && s.key.length === 1 && s.key[0] === 'sandbox_mode');
  if (pair === undefined || pair.kind !== 'pair' || pair.value !== MODE) return text;
  return text.slice(0, pair.start) + text.slice(pair.end);
}

/** Turns Codex's sandbox on in the user's config.toml, unless it already confines the shell; refuses over settings that open it. */
export function installCodexSandbox(env: NodeJS.ProcessEnv): boolean {
  const file = configFile(env);
  const { text, doc } = readConfig(file);
  const conflicts = codexSandboxConflicts(doc, env);
  if (conflicts.length > 0) {
    throw new InstallError(
      `${file} has settings that would let Codex's shell reach recap's files or socket: ${conflicts.join('; ')}. Then run recap install codex --sandbox again (recap changed nothing)`,
    );
  }
  if (doc.data.sandbox_mode !== undefined) return false;
  writeThroughLinks(file, withMode(text, doc));
  recordSandbox(env, file, { keys: ['sandbox_mode'], paths: {} });
  return true;
}

/** Takes recap's `sandbox_mode` out again; the file, when it changed. */
export function uninstallCodexSandbox(env: NodeJS.ProcessEnv): string[] {
  const file = configFile(env);
  if (sandboxAdded(env, file) === undefined) return [];
  const { text, doc } = readConfig(file);
  const after = withoutMode(text, doc);
  if (after !== text) writeThroughLinks(file, after);
  recordSandbox(env, file, undefined);
  return after !== text ? [file] : [];
}

/** `recap doctor`: the sandbox recap turned on is still on and still closed. */
export function codexSandboxChecks(env: NodeJS.ProcessEnv): Check[] {
  const file = configFile(env);
  if (sandboxAdded(env, file) === undefined) return [];
  let problems: string[];
  try {
    const { doc } = readConfig(file);
    problems = [...codexSandboxConflicts(doc, env), ...(doc.data.sandbox_mode === undefined ? ['sandbox_mode is gone, so Codex runs its default'] : [])];
  } catch (error) {
    problems = [(error as Error).message];
  }
  return [
    problems.length === 0
      ? { name: 'codex sandbox', ok: true, detail: `sandbox_mode in ${file} keeps Codex's shell out of recap's files and socket` }
      : { name: 'codex sandbox', ok: false, detail: `the sandbox recap turned on in ${file} is open: ${problems.join('; ')}`, fix: 'recap install codex --sandbox' },
  ];
}
