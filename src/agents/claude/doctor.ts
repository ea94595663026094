// `recap doctor` for Claude Code: recap's hooks in its settings, each one able to run and
// fail closed, and a Claude Code new enough to honour that.
import { existsSync, readFileSync } from 'node:fs';
import type { Check } from '../../client/checks.js';
import { httpTokenFile } from '../../common/paths.js';
import { claudeVersion, claudeVersionWarning, FAIL_CLOSED_SINCE, readSettings, settingsFiles, type Scope } from './install.js';
import { hookCommandWords, RECAP_EVENTS, recapHooksIn, type HookEntry } from './settings.js';

/** Recap's hooks in Claude Code and the Claude Code that runs them; nothing when neither is here. */
export function claudeDoctor(project: string, env: NodeJS.ProcessEnv): Check[] {
  const hooks = hookChecks(project, env);
  return hooks.length > 0 ? [...hooks, ...claudeCheck(env)] : [];
}

/** A Claude Code older than FAIL_CLOSED_SINCE runs the tool when recap's hook fails. */
function claudeCheck(env: NodeJS.ProcessEnv): Check[] {
  const version = claudeVersion(env);
  if (version === undefined) return [];
  const warning = claudeVersionWarning(version);
  return [
    warning
      ? {
          name: 'claude code',
          ok: false,
          detail: `${version}: a failing hook lets the tool run (the gate fails open)`,
          fix: `update Claude Code to ${FAIL_CLOSED_SINCE} or newer: claude update`,
        }
      : { name: 'claude code', ok: true, detail: `${version}: a failing PreToolUse hook denies the call` },
  ];
}

function hookChecks(project: string, env: NodeJS.ProcessEnv): Check[] {
  const found: { file: string; event: string; hook: HookEntry }[] = [];
  const checks: Check[] = [];
  for (const scope of ['user', 'project'] as Scope[]) {
    const { shared, local } = settingsFiles(scope, project, env);
    for (const file of new Set([shared, local])) {
      try {
        for (const hit of recapHooksIn(readSettings(file))) found.push({ file, ...hit });
      } catch (error) {
        checks.push({ name: 'claude hooks', ok: false, detail: (error as Error).message, fix: `repair the JSON in ${file}` });
      }
    }
  }
  if (found.length === 0) return checks;
  const missing = RECAP_EVENTS.map((e) => e.event).filter((event) => !found.some((f) => f.event === event));
  const broken = found.flatMap(({ file, event, hook }) => {
    const problem = hookProblem(event, hook, env);
    return problem ? [`${event} in ${file}: ${problem}`] : [];
  });
  const modes = [...new Set(found.map((f) => f.hook.type))].join(' and ');
  const where = [...new Set(found.map((f) => f.file))].join(', ');
  const ok = missing.length === 0 && broken.length === 0;
  const detail = ok ? `${modes} hooks in ${where}` : [...missing.map((e) => `no ${e} hook`), ...broken].join('; ');
  return [...checks, { name: 'claude hooks', ok, detail, ...(ok ? {} : { fix: 'recap install claude (add --http for HTTP hooks)' }) }];
}

function hookProblem(event: string, hook: HookEntry, env: NodeJS.ProcessEnv): string | undefined {
  if (hook.type === 'command') {
    const words = hookCommandWords(hook.command);
    const missing = words.find((w) => !existsSync(w));
    if (missing) return `${missing} does not exist`;
    // `#!/usr/bin/env node` finds Node on PATH: a node written early on PATH switches the hook off.
    if (words.length < 2 || !words[0]!.startsWith('/')) return 'the command does not name node by absolute path; run recap install claude again';
  }
  if (event === 'PreToolUse' && hook.onFailure !== 'block') return 'no onFailure: "block", so a failing hook lets the tool run; run recap install claude again';
  if (hook.type === 'command') return undefined;
  const tokenFile = httpTokenFile(env);
  if (!existsSync(tokenFile)) return `no token file ${tokenFile}`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  return hook.headers.Authorization === `Bearer ${token}` ? undefined : `its token is not the one in ${tokenFile}`;
}
