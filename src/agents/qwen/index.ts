// Qwen Code behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { qwenMcp } from './mcp.js';
import { qwenDoctor } from './doctor.js';
import { qwenFacts } from './facts.js';
import { parseQwenHook } from './hook.js';
import { installHooks, uninstallHooks } from './install.js';
import { usageOf } from './transcript.js';
import { hooksDisabledBy, projectSettingsLoad } from './trust.js';

export const qwen: Adapter = {
  mcp: qwenMcp,
  facts: qwenFacts,
  parse: parseQwenHook,
  // Its sandbox, Gemini CLI's, is a container its hooks run inside, away from recap's daemon.
  sandbox: {
    unsupported:
      "Qwen Code's sandbox is a container that its hooks run inside too, where recap's socket and files are not, so recap cannot gate a sandboxed Qwen Code; leave out --sandbox",
  },
  transcriptUsage: usageOf,
  // No http: Qwen Code lets the tool run when an HTTP hook's endpoint does not answer, while
  // recap-hook, run as a command, still denies from the daemon's last verdict.
  install({ scope, project, env }) {
    const { file, changed } = installHooks(scope, project, env);
    const warnings: string[] = [];
    if (scope === 'project' && !projectSettingsLoad(project, env)) {
      warnings.push(
        `folder trust is on and ${project} is not trusted, so Qwen Code will not run the hooks in ${file}; trust the folder (/trust in Qwen Code) or install for the user (recap install qwen)`,
      );
    }
    const disabledBy = hooksDisabledBy(project, env);
    if (disabledBy) warnings.push(`"disableAllHooks": true in ${disabledBy} turns every hook off, recap's too; remove it`);
    return { file, changed, mode: 'command', warnings };
  },
  uninstall: ({ scope, project, env }) => uninstallHooks(scope, project, env),
  doctor: qwenDoctor,
};
