// `recap install copilot` and `recap uninstall copilot`: recap's hooks file in Copilot CLI's
// hooks folder (`$COPILOT_HOME/hooks/recap.json`, or a repository's `.github/hooks/recap.json`),
// written atomically; hooks someone else put in that file are kept.
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { jsonText, writeAtomically } from '../kit/files.js';
import { hooksObject, JSONC, readJsonForWriting } from '../kit/jsonFile.js';
import { homeOf, type Scope } from '../kit/scopes.js';
import { copilotHome } from './facts.js';
import { hasHooks, recapCommand, recapEntry, RECAP_EVENTS, withoutRecap, type HooksFile } from './hooksFile.js';

/** Copilot CLI's user folder for this environment. */
export const copilotDir = (env: NodeJS.ProcessEnv): string => copilotHome(env, homeOf(env));

/** Where recap's hooks go: the user's hooks folder, or the repository's (read only in a trusted folder). */
export function hooksFilePath(scope: Scope, project: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(copilotDir(env), 'hooks', 'recap.json') : join(project, '.github', 'hooks', 'recap.json');
}

/** A JSON file as Copilot CLI writes them (comments allowed); undefined when there is none. */
export const readJson = (file: string): unknown => readJsonForWriting(file, JSONC)?.value;

/** recap's hooks file: an object whose "hooks" is one too; {} when there is none. */
export const readHooksFile = (file: string): HooksFile => hooksObject(file, readJson(file) ?? {}) as HooksFile;

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
  if (changed) writeAtomically(file, jsonText(after));
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
  else writeAtomically(file, jsonText(after));
  return [file];
}
