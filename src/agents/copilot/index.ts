// GitHub Copilot CLI behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { copilotMcp } from './mcp.js';
import { copilotDoctor } from './doctor.js';
import { copilotFacts } from './facts.js';
import { parseCopilotHook } from './hook.js';
import { installHooks, uninstallHooks } from './install.js';
import { folderTrusted, hooksDisabledBy } from './trust.js';

export const copilot: Adapter = {
  mcp: copilotMcp,
  facts: copilotFacts,
  parse: parseCopilotHook,
  sandbox: { unsupported: "Copilot CLI has no OS sandbox recap can configure; leave out --sandbox (recap's hook still judges every tool call)" },
  // No transcript: Copilot CLI names its events.jsonl only in Stop payloads, which recap does not take.
  // No http: an HTTP hook that does not answer would let the call run.
  install({ scope, project, env }) {
    const { file, changed } = installHooks(scope, project, env);
    const warnings: string[] = [];
    if (scope === 'project' && !folderTrusted(project, env)) {
      warnings.push(`${project} is not a trusted folder, so Copilot CLI will skip the hooks in ${file}; trust it in Copilot CLI, or install for the user (recap install copilot)`);
    }
    const disabled = hooksDisabledBy(project, env);
    if (disabled?.trusted) warnings.push(`"disableAllHooks": true in ${disabled.file} turns every hook off in this folder, recap's too; remove it`);
    return { file, changed, mode: 'command', warnings };
  },
  uninstall: ({ scope, project, env }) => uninstallHooks(scope, project, env),
  doctor: copilotDoctor,
};
