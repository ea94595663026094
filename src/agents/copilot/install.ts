// `recap install copilot` and `recap uninstall copilot`: recap's hooks file in Copilot CLI's
// hooks folder (`$COPILOT_HOME/hooks/recap.json`, or a repository's `.github/hooks/recap.json`),
// written atomically; hooks someone else put in that file are kept.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { UserError } from '../../common/errors.js';
import { withoutComments } from '../jsonComments.js';
import { copilotHome } from './facts.js';
import { hasHooks, recapCommand, recapEntry, RECAP_EVENTS, withoutRecap, type HooksFile } from './hooksFile.js';

export type Scope = 'user' | 'project';

/** A mistake in the user's files that recap will not write over. */
export class InstallError extends UserError {}

export const homeOf = (env: NodeJS.ProcessEnv): string => env.HOME ?? homedir();

/** Copilot CLI's user folder for this environment. */
export const copilotDir = (env: NodeJS.ProcessEnv): string => copilotHome(env, homeOf(env));

/** Where recap's hooks go: the user's hooks folder, or the repository's (read only in a trusted folder). */
export function hooksFilePath(scope: Scope, project: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(copilotDir(env), 'hooks', 'recap.json') : join(project, '.github', 'hooks', 'recap.json');
}

/** A JSON file as Copilot CLI writes them (comments allowed); undefined when there is none. */
export function readJson(file: string): unknown {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(withoutComments(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')).json);
  } catch (error) {
    throw new InstallError(`cannot read ${file}: ${(error as Error).message.replace(/\s+/g, ' ')}; fix it or move it aside (recap changed nothing)`);
  }
}

export function readHooksFile(file: string): HooksFile {
  const parsed = readJson(file) ?? {};
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InstallError(`${file} does not hold a JSON object; fix it or move it aside (recap changed nothing)`);
  const hooks = (parsed as HooksFile).hooks;
  if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))) {
    throw new InstallError(`"hooks" in ${file} is not an object; fix it or move it aside (recap changed nothing)`);
  }
  return parsed as HooksFile;
}

/** Writes through a temporary file and a rename, so Copilot CLI never reads half a file. */
function writeAtomically(file: string, content: HooksFile): void {
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const temporary = `${file}.recap-${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode });
  renameSync(temporary, file);
}

/** The file with recap's entry for each event after any others, and `version: 1`. */
export function withRecap(file: HooksFile, command: string): HooksFile {
  const base = withoutRecap(file);
  const hooks: Record<string, unknown> = { ...(base.hooks ?? {}) };
  for (const event of RECAP_EVENTS) hooks[event] = [...(Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []), recapEntry(command)];
  return { ...base, version: base.version ?? 1, hooks };
}

export function installHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): { file: string; changed: boolean } {
  const file = hooksFilePath(scope, project, env);
  const before = readHooksFile(file);
  const after = withRecap(before, recapCommand(RECAP_HOOK_BIN));
  const changed = !existsSync(file) || JSON.stringify(after) !== JSON.stringify(before);
  if (changed) writeAtomically(file, after);
  return { file, changed };
}

/** Takes recap's entries out; the file goes when nothing else was in it. */
export function uninstallHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const file = hooksFilePath(scope, project, env);
  if (!existsSync(file)) return [];
  const before = readHooksFile(file);
  const after = withoutRecap(before);
  if (JSON.stringify(after) === JSON.stringify(before)) return [];
  const { version: _v, hooks: _h, ...others } = after;
  if (!hasHooks(after) && Object.keys(others).length === 0) unlinkSync(file);
  else writeAtomically(file, after);
  return [file];
}
