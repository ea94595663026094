// Codex CLI behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { codexDoctor } from './doctor.js';
import { codexFacts } from './facts.js';
import { codexMcp } from './mcp.js';
import { parseCodexHook } from './hook.js';
import { configFile, installHooks, readConfig, setupProblems, uninstallHooks } from './install.js';
import { codexSandboxChecks, installCodexSandbox, uninstallCodexSandbox } from './sandbox.js';
import { codexUsageOf } from './transcript.js';

export const codex: Adapter = {
  facts: codexFacts,
  parse: parseCodexHook,
  transcriptUsage: codexUsageOf,
  // Codex's sandboxes (read-only, workspace-write) keep its shell off Unix sockets: the hook,
  // which runs outside them, runs the way out itself.
  wayOutInHook: true,
  // sandbox_mode is the user's config.toml's, whatever the scope of the hooks.
  sandbox: true,
  mcp: codexMcp,
  install({ scope, project, env, sandbox }) {
    // The sandbox first: a refusal then leaves everything as it was.
    const sandboxed = sandbox === true && installCodexSandbox(env);
    const installed = installHooks(scope, project, env);
    return { ...installed, changed: installed.changed || sandboxed, mode: 'command', warnings: setupProblems(scope, project, env, readConfig(configFile(env)).doc) };
  },
  uninstall: ({ scope, project, env }) => [...uninstallHooks(scope, project, env), ...(scope === 'user' ? uninstallCodexSandbox(env) : [])],
  doctor: (project, env) => [...codexDoctor(project, env), ...codexSandboxChecks(env)],
};
