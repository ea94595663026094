// Codex CLI behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { codexDoctor } from './doctor.js';
import { codexFacts } from './facts.js';
import { parseCodexHook } from './hook.js';
import { configFile, installHooks, readConfig, setupProblems, uninstallHooks } from './install.js';
import { codexUsageOf } from './transcript.js';

export const codex: Adapter = {
  facts: codexFacts,
  parse: parseCodexHook,
  transcriptUsage: codexUsageOf,
  // Codex's sandboxes (read-only, workspace-write) keep its shell off Unix sockets: the hook,
  // which runs outside them, runs the way out itself.
  wayOutInHook: true,
  install({ scope, project, env }) {
    const installed = installHooks(scope, project, env);
    return { ...installed, mode: 'command', warnings: setupProblems(scope, project, env, readConfig(configFile(env)).doc) };
  },
  uninstall: ({ scope, project, env }) => uninstallHooks(scope, project, env),
  doctor: codexDoctor,
};
