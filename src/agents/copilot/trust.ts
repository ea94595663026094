// Whether Copilot CLI runs the hooks it finds for a folder. A repository's hooks and settings
// load only in a trusted folder (COPILOT_ALLOW_ALL=true, or trustedFolders in config.json),
// and then its `.github/copilot/settings.json` can say "disableAllHooks": true, which turns
// every hook off, the user's own (recap's) too.
import { join, relative, isAbsolute, resolve } from 'node:path';
import { copilotDir, readJson } from './install.js';

const tryRead = (file: string): unknown => {
  try {
    return readJson(file);
  } catch {
    return undefined; // A broken file is Copilot CLI's to complain about; it trusts nothing here.
  }
};

const within = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Whether Copilot CLI trusts `folder`. A trusted folder above it counts too: if Copilot CLI
 * asks for the folder itself, recap only warns of a disableAllHooks that may not apply.
 */
export function folderTrusted(folder: string, env: NodeJS.ProcessEnv): boolean {
  if (env.COPILOT_ALLOW_ALL === 'true') return true;
  const trusted = (tryRead(join(copilotDir(env), 'config.json')) as { trustedFolders?: unknown } | undefined)?.trustedFolders;
  if (!Array.isArray(trusted)) return false;
  return trusted.some((entry) => typeof entry === 'string' && isAbsolute(entry) && within(resolve(folder), resolve(entry)));
}

/** The repository's settings files that may hold disableAllHooks. */
export const repoSettingsFiles = (project: string): string[] => [join(project, '.github', 'copilot', 'settings.json'), join(project, '.github', 'copilot', 'settings.local.json')];

/** The repository settings file that says "disableAllHooks": true, if one does, and whether the folder is trusted (so that it applies). */
export function hooksDisabledBy(project: string, env: NodeJS.ProcessEnv): { file: string; trusted: boolean } | undefined {
  const file = repoSettingsFiles(project).find((f) => (tryRead(f) as { disableAllHooks?: unknown } | undefined)?.disableAllHooks === true);
  return file === undefined ? undefined : { file, trusted: folderTrusted(project, env) };
}
