// Claude Code behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { claudeDoctor } from './doctor.js';
import { claudeFacts } from './facts.js';
import { parseClaudeHook } from './hook.js';
import { claudeVersion, claudeVersionWarning, installCommandHooks, installHttpHooks, uninstallHooks } from './install.js';
import { usageOf } from './transcript.js';

export const claude: Adapter = {
  facts: claudeFacts,
  parse: parseClaudeHook,
  transcriptUsage: usageOf,
  http: true,
  install({ scope, project, env, http }) {
    const installed = http ? installHttpHooks(scope, project, env, http.url, http.token) : installCommandHooks(scope, project, env);
    // Never fails the install: without `claude` on PATH there is nothing to say.
    const warning = claudeVersionWarning(claudeVersion(env));
    return { ...installed, warnings: warning ? [warning] : [] };
  },
  uninstall: ({ scope, project, env }) => uninstallHooks(scope, project, env),
  doctor: claudeDoctor,
};
