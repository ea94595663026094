// Claude Code behind recap's adapter seam: settings hooks (command or HTTP) or the plugin,
// never both, since Claude Code would run both.
import type { Adapter, InstallOptions } from '../adapter.js';
import { claudeMcp } from './mcp.js';
import { claudeDoctor } from './doctor.js';
import { claudeFacts } from './facts.js';
import { parseClaudeHook } from './hook.js';
import { claudeVersion, claudeVersionWarning, failsClosed, installCommandHooks, installHttpHooks, settingsFiles, uninstallHooks } from './install.js';
import { installPlugin, uninstallPlugin } from './plugin.js';
import { claudeSandboxOn, installSandbox, refuseOpenSandbox, sandboxChecks, uninstallSandbox } from './sandboxInstall.js';
import { usageOf } from './transcript.js';

/** onFailure only where it is honoured; without `claude` on PATH it is written, as newer versions want it. */
const failClosed = (version: string | undefined) => version === undefined || failsClosed(version);

/** recap's hooks or its plugin. The new way in first, then the old one out: a failure leaves the gate where it was. */
function hooks(scope: InstallOptions['scope'], project: string, env: NodeJS.ProcessEnv, version: string | undefined, http: InstallOptions['http'], plugin: boolean | undefined) {
  if (plugin) {
    const installed = installPlugin(scope, project, env);
    uninstallHooks(scope, project, env);
    return { ...installed, mode: 'plugin' as const };
  }
  const installed = http ? installHttpHooks(scope, project, env, http.url, http.token, failClosed(version)) : installCommandHooks(scope, project, env, failClosed(version));
  uninstallPlugin(scope, project, env);
  return installed;
}

export const claude: Adapter = {
  mcp: claudeMcp,
  facts: claudeFacts,
  parse: parseClaudeHook,
  transcriptUsage: usageOf,
  http: true,
  plugin: true,
  sandbox: true,
  // A sandboxed Bash tool cannot reach recap's socket (nor read the launcher): where a settings
  // file turns Claude Code's sandbox on, recap's own or the user's, the hook runs the way out.
  wayOutInHook: (caller) => claudeSandboxOn(caller),
  install({ scope, project, env, http, plugin, sandbox }) {
    const version = claudeVersion(env);
    const warning = claudeVersionWarning(version);
    const warnings = warning ? [warning] : [];
    if (sandbox) refuseOpenSandbox(scope, project, env);
    const installed = hooks(scope, project, env, version, http, plugin);
    if (!sandbox) return { ...installed, warnings };
    // In a project, settings.local.json: the sandbox names this machine's paths, which a committed file must not.
    const sandboxed = installSandbox(scope, project, env, settingsFiles(scope, project, env).local);
    return { ...installed, changed: installed.changed || sandboxed.changed, warnings: [...warnings, ...sandboxed.warnings] };
  },
  uninstall: ({ scope, project, env }) => [...new Set([...uninstallHooks(scope, project, env), ...uninstallPlugin(scope, project, env), ...uninstallSandbox(scope, project, env)])],
  doctor: (project, env) => {
    const checks = claudeDoctor(project, env);
    return [...checks, ...sandboxChecks(project, env)];
  },
};
