// `recap doctor` for Codex CLI: recap's hooks in a hooks.json, each able to run, and each
// trusted in the user's config.toml with the hash Codex computes now. An untrusted or
// modified hook is skipped by `codex exec` without a word, so this is where it shows.
import { commandProblem } from '../hookCommand.js';
import { existsSync } from 'node:fs';
import type { Check } from '../../common/check.js';
import { checkOf, findHooks, hookFaults } from '../kit/hookChecks.js';
import { SCOPES, type Scope } from '../kit/scopes.js';
import type { TomlDocument } from './toml.js';
import { places, RECAP_EVENTS, TIMEOUT_SECONDS, type Place } from './hooksFile.js';
import { codexHome, configFile, hooksFile, readConfig, readHooksFile, setupProblems } from './install.js';
import { trustKey } from './trust.js';
import { placeHash, trustStates } from './trustEntries.js';

const FIX = 'recap install codex (it writes the hooks and their trust entries again)';

/** recap's hooks in Codex, or why they will not run; nothing when neither recap nor Codex is set up here. */
export function codexDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const files = SCOPES.map((scope) => ({ scope, file: hooksFile(scope, project, env) }));
  const { found, checks } = findHooks('codex hooks', files, (file) =>
    places(readHooksFile(file))
      .filter((place) => place.recap)
      .map((place) => ({ event: place.event, place })),
  );
  if (found.length === 0) {
    if (checks.length > 0) return checks;
    const home = codexHome(env);
    if (!existsSync(configFile(env)) && !existsSync(hooksFile('user', project, env))) return [];
    return [{ name: 'codex hooks', ok: false, detail: `Codex is set up in ${home}, but recap's hooks are not there`, fix: 'recap install codex' }];
  }
  return [...checks, hooksCheck(found), ...trustChecks(found, project, env)];
}

/** Every event recap needs has its hook, and each can run and answer in time. */
function hooksCheck(found: { file: string; event: string; place: Place }[]): Check {
  const faults = hookFaults(
    RECAP_EVENTS.map((e) => e.event),
    found,
    ({ place }) => hookProblem(place),
  );
  const where = [...new Set(found.map((f) => f.file))].join(', ');
  return checkOf('codex hooks', faults, `command hooks in ${where}`, FIX);
}

function hookProblem(place: Place): string | undefined {
  const entry = place.entry as { command: string; timeout?: unknown; additionalContextLimit?: unknown };
  const problem = commandProblem(entry.command, 'codex');
  if (problem) return problem;
  if (typeof entry.timeout !== 'number' || entry.timeout < TIMEOUT_SECONDS) {
    return `its timeout (${String(entry.timeout ?? 600)} s) is under the ${TIMEOUT_SECONDS} s that lets recap-hook answer first (Codex runs the call when a hook times out)`;
  }
  const limit = RECAP_EVENTS.find((e) => e.event === place.event)?.contextLimit;
  if (limit !== undefined && entry.additionalContextLimit !== limit) return 'without additionalContextLimit 0, Codex hands the model a preview of a long context, not the context';
  return undefined;
}

/** Each recap hook is trusted with the hash of what it is now, is not disabled, and Codex runs hooks at all. */
function trustChecks(found: { scope: Scope; file: string; place: Place }[], project: string, env: NodeJS.ProcessEnv): Check[] {
  const config = configFile(env);
  let doc: TomlDocument;
  try {
    doc = readConfig(config).doc;
  } catch (error) {
    return [{ name: 'codex trust', ok: false, detail: (error as Error).message, fix: `repair ${config}` }];
  }
  const states = trustStates(doc);
  const problems = found.flatMap(({ file, place }) => {
    const key = trustKey(file, place.event, place.group, place.handler);
    const state = states.get(key);
    if (state?.enabled === false) return [`${place.event} is turned off in Codex (enabled = false for ${key})`];
    if (state?.trustedHash === undefined) return [`${place.event} is not trusted (no entry for ${key}): codex exec skips it without a word`];
    if (state.trustedHash !== placeHash(place)) return [`${place.event} was changed since it was trusted (${key}): codex exec skips it without a word`];
    return [];
  });
  const scopes = [...new Set(found.map((f) => f.scope))];
  problems.push(...scopes.flatMap((scope) => setupProblems(scope, project, env, doc)));
  return [checkOf('codex trust', problems, `every recap hook is trusted in ${config}`, FIX)];
}
