// `recap install codex` and `recap uninstall codex`: recap's hooks in Codex's hooks.json
// and, in the user's config.toml, the trust entries without which Codex skips them. Both
// files are read and checked before either is written; each is written through a
// temporary file and a rename (to the real file when it is a symlink).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { jsonText, realOr, writeAtomically } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { isObject, parseJsonFile } from '../kit/jsonFile.js';
import { homeOf, type Scope } from '../kit/scopes.js';
import { isTable, parseToml, TomlError, type TomlDocument } from './toml.js';
import { recapCommand, withoutRecap, withRecap, type HooksFile } from './hooksFile.js';
import { retrust, TrustEditError } from './trustEntries.js';

/** Codex's user folder as Codex names it: CODEX_HOME resolved to its real path, else $HOME/.codex as is. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? realOr(env.CODEX_HOME) : join(homeOf(env), '.codex');
}

export const configFile = (env: NodeJS.ProcessEnv): string => join(codexHome(env), 'config.toml');

/** Where recap's hooks go: the user's hooks.json, or the project's (Codex reads it in a trusted project). */
export function hooksFile(scope: Scope, project: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(codexHome(env), 'hooks.json') : join(realOr(project), '.codex', 'hooks.json');
}

/** A hooks.json as Codex reads it: an object of `hooks` (and a `description`), each event a list of groups. */
export function readHooksFile(file: string): HooksFile {
  const read = parseJsonFile(file);
  if (read === undefined) return {};
  const broken = (why: string) => new InstallError(`${file} ${why}; fix it or move it aside (recap changed nothing)`);
  // Codex's own words for a file it cannot read: "<file> cannot be read: <reason>".
  if (!read.ok) throw broken(`cannot be read: ${read.reason}`);
  const parsed = read.value;
  if (!isObject(parsed)) throw broken('does not hold a JSON object');
  const others = Object.keys(parsed).filter((key) => key !== 'hooks' && key !== 'description');
  if (others.length > 0) throw broken(`has keys Codex does not accept beside "hooks" (${others.join(', ')}), so Codex ignores the whole file`);
  const hooks = (parsed as HooksFile).hooks;
  if (hooks === undefined) return parsed as HooksFile;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) throw broken('has a "hooks" that is not an object');
  for (const [event, groups] of Object.entries(hooks)) {
    const wrong = !Array.isArray(groups) || groups.some((g) => g === null || typeof g !== 'object' || !Array.isArray((g as { hooks?: unknown }).hooks));
    if (wrong) throw broken(`has a "${event}" that is not a list of groups, each with a "hooks" list`);
  }
  return parsed as HooksFile;
}

/** The user's config.toml as text and as data ('' and nothing when there is none). */
export function readConfig(file: string): { text: string; doc: TomlDocument } {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  try {
    return { text, doc: parseToml(text) };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    throw new InstallError(`${file} cannot be read as TOML (${error.message}); fix it or move it aside (recap changed nothing)`);
  }
}

/** Writes through a temporary file and a rename, into the real file a symlink names, keeping its mode. */
export const writeThroughLinks = (file: string, text: string): void => writeAtomically(file, text, { throughLinks: true });

/**
 * Applies `change` to the hooks file and rewrites the trust entries to match. Everything is
 * read and checked first; the trust is written before the hooks, so recap's hooks never
 * stand untrusted.
 */
function update(scope: Scope, project: string, env: NodeJS.ProcessEnv, change: (file: HooksFile) => HooksFile): { file: string; changed: boolean } {
  const file = hooksFile(scope, project, env);
  const config = configFile(env);
  const before = readHooksFile(file);
  const after = change(before);
  const { text } = readConfig(config);
  let trusted: string;
  try {
    trusted = retrust(text, file, before, after);
  } catch (error) {
    if (error instanceof TrustEditError) throw new InstallError(`${config}: ${error.message} (recap changed nothing)`);
    throw error;
  }
  const hooksChanged = JSON.stringify(after) !== JSON.stringify(before);
  if (trusted !== text) writeThroughLinks(config, trusted);
  if (hooksChanged) writeThroughLinks(file, jsonText(after));
  return { file, changed: hooksChanged || trusted !== text };
}

export function installHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): { file: string; changed: boolean } {
  const command = recapCommand(RECAP_HOOK_BIN);
  return update(scope, project, env, (file) => withRecap(file, command));
}

/** The files recap's hooks or their trust were taken out of. */
export function uninstallHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const file = hooksFile(scope, project, env);
  if (!existsSync(file)) return [];
  const { changed } = update(scope, project, env, withoutRecap);
  return changed ? [file] : [];
}

/** What keeps Codex from running recap's hooks in a default setup, for the user to fix. */
export function setupProblems(scope: Scope, project: string, env: NodeJS.ProcessEnv, doc: TomlDocument): string[] {
  const problems: string[] = [];
  const features = doc.data.features;
  if (isTable(features) && (features.hooks === false || features.codex_hooks === false)) {
    problems.push(`[features] in ${configFile(env)} turns Codex's hooks off; remove that line`);
  }
  if (scope === 'project' && !projectTrusted(doc, project)) {
    problems.push(`Codex reads ${join(realOr(project), '.codex', 'hooks.json')} only in a trusted project: trust ${realOr(project)} in Codex (or install with --scope user)`);
  }
  return problems;
}

/**
 * Whether the user's config trusts the project, as Codex asks before it reads the project's
 * .codex folder: an entry for the project's own folder (a folder above it is not enough).
 */
export function projectTrusted(doc: TomlDocument, project: string): boolean {
  const projects = doc.data.projects;
  const entry = isTable(projects) ? projects[realOr(project)] : undefined;
  return isTable(entry) && entry.trust_level === 'trusted';
}
