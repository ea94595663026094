// Claude Code behind recap's adapter seam: settings hooks (command or HTTP) or the plugin,
// never both, since Claude Code would run both.
import type { Adapter } from '../adapter.js';
import { claudeDoctor } from './doctor.js';
import { claudeFacts } from './facts.js';
import { parseClaudeHook } from './hook.js';
import { claudeVersion, claudeVersionWarning, failsClosed, installCommandHooks, installHttpHooks, uninstallHooks } from './install.js';
import { installPlugin, uninstallPlugin } from './plugin.js';
import { usageOf } from './transcript.js';

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
    if (plugin) {
      uninstallHooks(scope, project, env);
      return { ...installPlugin(scope, project, env), mode: 'plugin', warnings };
    }
    uninstallPlugin(scope, project, env);
    // onFailure only where it is honoured; without `claude` on PATH it is written, as newer versions want it.
    const failClosed = version === undefined || failsClosed(version);
    const installed = http ? installHttpHooks(scope, project, env, http.url, http.token, failClosed) : installCommandHooks(scope, project, env, failClosed);
    return { ...installed, warnings };
  },
  uninstall: ({ scope, project, env }) => [...new Set([...uninstallHooks(scope, project, env), ...uninstallPlugin(scope, project, env)])],
  doctor: claudeDoctor,
};
