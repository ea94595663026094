// What recap-hook does when the daemon does not answer: start it and connect, or answer as
// ON_DAEMON_DOWN says. Bundled apart from the hook (dist/client/hookFallback.cjs) and loaded
// only on this rare path, so the hook's usual path neither parses nor runs it.
import { existsSync, readFileSync } from 'node:fs';
import { parseConfigFile } from '../common/configFile.js';
import { projectRoot } from '../common/jobs.js';
import { projectConfigPath, userConfigPath } from '../common/paths.js';
import { connectOrStart } from './autostart.js';
import type { Answer } from './hook.js';
import type { Client } from './socketClient.js';

/** Starts the daemon (detached) and connects once its socket answers. */
export function startAndConnect(deadlineMs: number): Promise<Client> {
  return connectOrStart(process.env, deadlineMs);
}

/**
 * ON_DAEMON_DOWN from the user's config, made stricter by the project's: the agent can
 * write the project's file and no daemon is here to hold back what it opens, so only the
 * user's file can say `open`; the project's can only say `closed`.
 */
function onDaemonDown(payload: unknown): 'open' | 'closed' {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  const files = [userConfigPath(), ...(typeof cwd === 'string' && cwd.startsWith('/') ? [projectConfigPath(projectRoot(cwd))] : [])];
  let mode: 'open' | 'closed' = 'open';
  for (const [index, file] of files.entries()) {
    try {
      if (!existsSync(file)) continue;
      const value = parseConfigFile(readFileSync(file, 'utf8'), process.env).assignments.get('ON_DAEMON_DOWN')?.value;
      const isUsers = index === 0;
      if (value === 'closed' || (value === 'open' && isUsers)) mode = value;
    } catch {
      // An unreadable file leaves the mode as it was.
    }
  }
  return mode;
}

/** The answer when the daemon cannot be reached: deny tool calls if closed, else warn. */
export function daemonDown(payload: unknown, why: string): Answer {
  const event = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (onDaemonDown(payload) === 'closed' && event === 'PreToolUse') {
    const reason =
      `recap: the daemon is not reachable (${why}) and ON_DAEMON_DOWN=closed, so every tool is denied. ` +
      'Ask the user to start it with: recap daemon (or systemctl --user start recap.socket).';
    const output = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
    return { stdout: JSON.stringify(output), exitCode: 0 };
  }
  const message = `recap: the daemon is not reachable (${why}); this call was not checked. Start it with: recap daemon`;
  return { stdout: JSON.stringify({ systemMessage: message }), exitCode: 0 };
}
