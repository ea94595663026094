// `recap doctor` for GitHub Copilot CLI: recap's hooks file there, pointing at this recap and
// able to run in time, recap's hooks nowhere else (each copy counts every prompt again), and
// no trusted repository setting that turns every hook off in this folder.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../common/check.js';
import { hookFaults } from '../kit/hookChecks.js';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { commandPaths, HOOK_DEADLINE_SECONDS, matchesAll, RECAP_EVENTS, recapEntriesIn, type HookEntry } from './hooksFile.js';
import { copilotDir, hooksFilePath, readJson } from './install.js';
import { folderTrusted, hooksDisabledBy } from './trust.js';

const NAME = 'copilot hooks';

type Found = { file: string; repo: boolean; event: string; entry: HookEntry; matcher?: unknown };

/** The JSON files of a folder (not below it). */
const jsonFiles = (dir: string): string[] => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
};

/** Every JSON file a few levels under the plugins folder: a plugin's hooks file may be named anything. */
function pluginFiles(dir: string, depth = 4): string[] {
  if (depth === 0) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.slice(0, 200).flatMap((name) => {
    const path = join(dir, name);
    try {
      if (statSync(path).isDirectory()) return pluginFiles(path, depth - 1);
    } catch {
      return [];
    }
    return name.endsWith('.json') ? [path] : [];
  });
}

/** recap's hooks in every place Copilot CLI loads hooks from, for the user and for this repository. */
function findRecap(project: string, env: NodeJS.ProcessEnv): { found: Found[]; unreadable: Check[] } {
  const home = copilotDir(env);
  const places: { file: string; repo: boolean }[] = [
    ...jsonFiles(join(home, 'hooks')).map((file) => ({ file, repo: false })),
    { file: join(home, 'settings.json'), repo: false },
    ...pluginFiles(join(home, 'installed-plugins')).map((file) => ({ file, repo: false })),
    ...jsonFiles(join(project, '.github', 'hooks')).map((file) => ({ file, repo: true })),
    { file: join(project, '.github', 'copilot', 'settings.json'), repo: true },
    { file: join(project, '.github', 'copilot', 'settings.local.json'), repo: true },
  ];
  const found: Found[] = [];
  const unreadable: Check[] = [];
  for (const { file, repo } of places) {
    try {
      for (const hit of recapEntriesIn(readJson(file))) found.push({ file, repo, ...hit });
    } catch (error) {
      // Only a file of recap's own is recap's to complain about.
      if (file === hooksFilePath(repo ? 'project' : 'user', project, env))
        unreadable.push({ name: NAME, ok: false, detail: (error as Error).message, fix: `repair or remove ${file}` });
    }
  }
  return { found, unreadable };
}

export function copilotDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const { found, unreadable } = findRecap(project, env);
  const disabled = hooksDisabledBy(project, env);
  if (found.length === 0 && unreadable.length === 0) return [];
  const problems: string[] = [];
  const fixes = new Set<string>();
  const trusted = folderTrusted(project, env);
  const running = found.filter((f) => !f.repo || trusted);
  const untrusted = found.find((f) => f.repo && !trusted);
  if (untrusted) {
    problems.push(`${project} is not a trusted folder, so Copilot CLI skips the hooks in ${untrusted.file}`);
    fixes.add('install for the user instead: recap install copilot (or trust the folder in Copilot CLI)');
  }
  const faults = hookFaults(RECAP_EVENTS, running, entryProblem);
  problems.push(...faults);
  if (faults.length > 0) fixes.add('recap install copilot');
  const files = [...new Set(running.map((f) => f.file))];
  if (files.length > 1) {
    problems.push(`recap's hooks are in ${files.join(' and ')}: Copilot CLI runs each, so every prompt counts more than once`);
    fixes.add(`keep only ${hooksFilePath('user', project, env)}: take recap's hooks out of the others (recap uninstall copilot --scope project for the repository's)`);
  }
  if (disabled?.trusted) {
    problems.push(`"disableAllHooks": true in ${disabled.file} turns every hook off in this trusted folder, recap's too`);
    fixes.add(`remove "disableAllHooks" from ${disabled.file}`);
  }
  const ok = problems.length === 0;
  const notes = disabled && !disabled.trusted ? `; ${disabled.file} says "disableAllHooks": true, which would turn recap off if the folder were trusted` : '';
  const hooks: Check = ok
    ? { name: NAME, ok, detail: `command hooks in ${files.join(', ')}${notes}` }
    : { name: NAME, ok, detail: problems.join('; ') + notes, fix: [...fixes].join('; ') };
  return [...unreadable, hooks];
}

function entryProblem({ event, entry, matcher }: Found): string | undefined {
  const paths = commandPaths(entry.bash);
  // A hand-written command exits 127 once recap-hook is gone: then Copilot CLI denies every call.
  if (paths === undefined) return "its command is not recap's own form, which lets calls run if recap is removed instead of denying every one; run recap install copilot";
  if (!existsSync(paths.hook)) return `${paths.hook} does not exist, so the hook lets every call run`;
  if (!existsSync(paths.node)) return `${paths.node} does not exist, so the hook lets every call run`;
  if (paths.hook !== RECAP_HOOK_BIN) return `it runs another recap (${paths.hook}), not this one (${RECAP_HOOK_BIN})`;
  const timeout = entry.timeoutSec ?? 30;
  // Copilot CLI lets the call run when a hook times out: recap-hook's own deadline must come first.
  if (typeof timeout !== 'number' || timeout <= HOOK_DEADLINE_SECONDS)
    return `its timeoutSec (${JSON.stringify(timeout)}) does not leave recap-hook its ${HOOK_DEADLINE_SECONDS} s`;
  if (event === 'PreToolUse' && !matchesAll(matcher)) return `its matcher ${JSON.stringify(matcher)} leaves some tools unchecked`;
  return undefined;
}
