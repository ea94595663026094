// Claude Code behind recap's adapter seam: settings hooks (command or HTTP) or the plugin,
// never both, since Claude Code would run both.
import type { Adapter } from '../adapter.js';
import { claudeDoctor } from './doctor.js';
import { claudeFacts } from './facts.js';
import { parseClaudeHook } from './hook.js';
import { claudeVersion, claudeVersionWarning, failsClosed, installCommandHooks, installHttpHooks, uninstallHooks } from './install.js';
import { installPlugin, uninstallPlugin } from './plugin.js';
import { usageOf } from './transcript.js';

/** onFailure only where it is honoured; without `claude` on PATH it is written, as newer versions want it. */
const failClosed = (version: string | undefined) => version === undefined || failsClosed(version);

export const claude: Adapter = {
  facts: claudeFacts,
  parse: parseClaudeHook,
  transcriptUsage: usageOf,
  http: true,
  plugin: true,
  install({ scope, project, env, http, plugin }) {
    const version = claudeVersion(env);
    const warning = claudeVersionWarning(version);
    const warnings = warning ? [warning] : [];
    // The new way in first, then the old one out: a failure leaves the gate where it was.
    if (plugin) {
      const installed = installPlugin(scope, project, env);
      uninstallHooks(scope, project, env);
      return { ...installed, mode: 'plugin', warnings };
    }
    const installed = http ? installHttpHooks(scope, project, env, http.url, http.token, failClosed(version)) : installCommandHooks(scope, project, env, failClosed(version));
    uninstallPlugin(scope, project, env);
    return { ...installed, warnings };
  },
  uninstall: ({ scope, project, env }) => [...new Set([...uninstallHooks(scope, project, env), ...uninstallPlugin(scope, project, env)])],
  doctor: claudeDoctor,
};
