// `recap doctor` for Qwen Code: recap's hooks in its settings, each one able to run in time,
// in a folder whose hooks Qwen Code loads, with no setting that turns hooks off.
import { commandProblem } from '../hookCommand.js';
import type { Check } from '../../common/check.js';
import { hookEnvironment } from '../hookEnvironment.js';
import { agentVersion, compareVersions } from '../kit/agentVersion.js';
import { checkOf, findHooks, hookFaults } from '../kit/hookChecks.js';
import { SCOPES } from '../kit/scopes.js';
import { readSettings, settingsFile } from './install.js';
import { HOOK_DEADLINE_MS, matchesAll, RECAP_EVENTS, recapHooksIn, timeoutMs, type HookEntry } from './settings.js';
import { hooksDisabledBy, projectSettingsLoad } from './trust.js';

const NAME = 'qwen hooks';

/** The Qwen Code recap was verified against; older ones may not mark the user's own prompts. */
export const VERIFIED_VERSION = '0.24.4';

/** Recap's hooks in Qwen Code and whether they will run; nothing when neither recap's hooks nor broken settings are here. */
export function qwenDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const places = SCOPES.map((scope) => ({ file: settingsFile(scope, project, env), scope }));
  const { found, checks } = findHooks(NAME, places, (file) => recapHooksIn(readSettings(file).settings));
  if (found.length === 0) return checks;

  const problems: string[] = [];
  const fixes = new Set<string>();
  const projectLoads = projectSettingsLoad(project, env);
  const untrusted = found.find((f) => f.scope === 'project' && !projectLoads);
  if (untrusted) {
    problems.push(`folder trust is on and ${project} is not trusted, so Qwen Code does not load the hooks in ${untrusted.file}`);
    fixes.add(`trust ${project} in Qwen Code (/trust), or install for the user instead: recap install qwen`);
  }
  const running = found.filter((f) => f.scope === 'user' || projectLoads);
  // Hooks that do not load are said above; their events are not listed again as missing.
  const pinned = hookEnvironment(env);
  const faults = hookFaults(
    RECAP_EVENTS.map((e) => e.event),
    running,
    ({ event, matcher, hook }) => hookProblem(event, matcher, hook, pinned),
  );
  problems.push(...faults);
  if (faults.length > 0) fixes.add(running.every((f) => f.scope === 'project') ? 'recap install qwen --scope project' : 'recap install qwen');
  const files = [...new Set(running.map((f) => f.file))];
  if (files.length > 1) {
    problems.push(`recap's hooks are in both ${files.join(' and ')}: Qwen Code runs both, so every prompt counts twice`);
    fixes.add(`recap uninstall qwen --scope ${running.some((f) => f.scope === 'project') ? 'project' : 'user'}`);
  }
  const disabledBy = hooksDisabledBy(project, env);
  if (disabledBy) {
    problems.push(`"disableAllHooks": true in ${disabledBy} turns every hook off`);
    fixes.add(`remove "disableAllHooks" from ${disabledBy}`);
  }
  return [...checks, checkOf(NAME, problems, `command hooks in ${files.join(', ')}`, [...fixes].join('; ')), ...versionCheck(env)];
}

function hookProblem(event: string, matcher: unknown, hook: HookEntry, pinned: Record<string, string>): string | undefined {
  const problem = commandProblem(hook.command, 'qwen');
  if (problem) return problem;
  const ms = timeoutMs(hook.timeout);
  // Qwen Code lets the call through when a hook times out: recap-hook's own deadline must come first.
  if (ms === undefined || ms <= HOOK_DEADLINE_MS)
    return `its timeout (${JSON.stringify(hook.timeout)}) does not leave recap-hook its ${HOOK_DEADLINE_MS / 1000} s, and a hook that times out lets the tool run`;
  if (event === 'PreToolUse' && !matchesAll(matcher)) return `its matcher ${JSON.stringify(matcher)} leaves some tools unchecked`;
  // Qwen Code hands its hooks a project's .env: without recap's own paths named, one there could send the hook elsewhere.
  const given = hook.env !== null && typeof hook.env === 'object' ? (hook.env as Record<string, unknown>) : {};
  const unpinned = Object.entries(pinned)
    .filter(([name, value]) => given[name] !== value)
    .map(([name]) => name);
  if (unpinned.length > 0)
    return `its environment does not set ${unpinned.join(', ')} as recap's own, so a project's .env could send it to another daemon or load code into it; run recap install qwen again`;
  return undefined;
}

/** The installed Qwen Code's version (`qwen --version`), or undefined when there is no `qwen`. */
export const qwenVersion = (env: NodeJS.ProcessEnv): string | undefined => agentVersion('qwen', env, 15_000);

/** An older Qwen Code may not say which prompts are the user's, and then none is counted. */
function versionCheck(env: NodeJS.ProcessEnv): Check[] {
  const version = qwenVersion(env);
  if (version === undefined) return [];
  return compareVersions(version, VERIFIED_VERSION) < 0
    ? [
        {
          name: 'qwen code',
          ok: false,
          detail: `${version}: older than ${VERIFIED_VERSION}, which recap is verified with; it may not mark the user's prompts (submitted_prompt), and then none is counted`,
          fix: 'update Qwen Code: npm install -g @qwen-code/qwen-code@latest',
        },
      ]
    : [{ name: 'qwen code', ok: true, detail: `${version}: marks the user's own prompts` }];
}
