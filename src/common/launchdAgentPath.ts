// Where recap's launchd agent lives on macOS: its label and its plist, named by the installer,
// doctor, and the daemon's list of files the agent may read but never change. Node built-ins only.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The agent's label: launchd's name for it, and its plist's file name. */
export const LAUNCHD_LABEL = 'recap.daemon';

export function launchAgentsDir(env: NodeJS.ProcessEnv): string {
  return join(env.HOME ?? homedir(), 'Library', 'LaunchAgents');
}

export function launchdPlistPath(env: NodeJS.ProcessEnv): string {
  return join(launchAgentsDir(env), `${LAUNCHD_LABEL}.plist`);
}
