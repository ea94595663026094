// `recap install gemini` and `recap uninstall gemini`: recap's own extension folder in
// Gemini CLI's extensions, written file by file through a rename (the hooks first, then the
// manifest that makes Gemini CLI load them), removed whole. Nothing else is touched: not the
// other extensions, not the settings (which may hold comments a rewrite would lose).
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { recapVersion } from '../../common/version.js';
import type { InstallOptions, Installed } from '../adapter.js';
import { jsonText, writeIfChanged } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { readJsonObject } from '../kit/jsonFile.js';
import { homeOf } from '../kit/scopes.js';
import { EXTENSION_DESCRIPTION, EXTENSION_NAME, extensionPaths, hookEnvironment, hooksFile, manifest, type ExtensionPaths } from './extension.js';

export const pathsFor = (env: NodeJS.ProcessEnv) => extensionPaths(env, homeOf(env));

/** What the manifest file says, or why it cannot be read. */
export const readManifest = (file: string) => readJsonObject(file);

/** Whether the folder holds recap's extension (its manifest, with recap's description). */
export function isRecapExtension(paths: ExtensionPaths): boolean {
  const read = readManifest(paths.manifest);
  return read?.ok === true && read.value.name === EXTENSION_NAME && read.value.description === EXTENSION_DESCRIPTION;
}

/** Other extension folders that call themselves recap: Gemini CLI stops at start-up on two of one name. */
export function namesakes(paths: ExtensionPaths): string[] {
  if (!existsSync(paths.extensions)) return [];
  return readdirSync(paths.extensions)
    .map((entry) => join(paths.extensions, entry))
    .filter((dir) => dir !== paths.dir && isDirectory(dir))
    .filter((dir) => {
      const read = readManifest(join(dir, 'gemini-extension.json'));
      return read?.ok === true && read.value.name === EXTENSION_NAME;
    });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Through a temporary file and a rename: Gemini CLI never reads half a file. */
const writeJson = (file: string, value: unknown): boolean => writeIfChanged(file, jsonText(value), { mode: 0o644 });

/** Refuses a folder recap did not write, and a second extension named recap. */
function checkFolder(paths: ExtensionPaths): void {
  if (existsSync(paths.dir) && !isRecapExtension(paths)) {
    const read = readManifest(paths.manifest);
    const what = read === undefined ? 'has no gemini-extension.json of recap' : read.ok ? 'holds an extension recap did not write' : read.problem;
    throw new InstallError(`${paths.dir} ${what}; move it aside and run recap install gemini again (recap changed nothing)`);
  }
  const others = namesakes(paths);
  if (others.length > 0) {
    throw new InstallError(
      `${others.join(' and ')} also calls itself "${EXTENSION_NAME}", and Gemini CLI refuses to start with two extensions of one name; ` +
        'remove it (gemini extensions uninstall), then run recap install gemini again (recap changed nothing)',
    );
  }
}

export function installExtension({ scope, env }: InstallOptions, node = process.execPath, hookBin = RECAP_HOOK_BIN): Installed {
  if (scope === 'project') {
    throw new InstallError(
      'Gemini CLI loads extensions only from ~/.gemini/extensions, for every project, and project settings hooks do not run in untrusted folders: run recap install gemini without --scope project',
    );
  }
  const paths = pathsFor(env);
  checkFolder(paths);
  // The hooks before the manifest: a folder without its manifest is no extension yet.
  const hooks = writeJson(paths.hooks, hooksFile(hookBin, node, paths.dir, hookEnvironment(env)));
  const made = writeJson(paths.manifest, manifest(recapVersion()));
  return { file: paths.dir, changed: hooks || made, mode: 'command', warnings: [] };
}

/**
 * Removes recap's extension folder, the manifest first (then Gemini CLI no longer loads it).
 * A folder recap did not write is left alone.
 */
export function uninstallExtension({ scope, env }: InstallOptions): string[] {
  if (scope === 'project') return [];
  const paths = pathsFor(env);
  if (!isRecapExtension(paths)) return [];
  rmSync(paths.manifest, { force: true });
  rmSync(paths.dir, { recursive: true, force: true });
  return [paths.dir];
}
