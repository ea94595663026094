// `recap install launchd` / `recap uninstall launchd`: recap's daemon as the user's launchd
// agent on macOS (~/Library/LaunchAgents/recap.daemon.plist, loaded into gui/<uid>), and gone
// again. The plist is made and read by the plist package, with the keys launchd.plist(5)
// documents; launchctl is run through launchctl.ts alone.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, parse } from 'plist';
import { DAEMON_ENVIRONMENT, daemonCommand } from '../common/daemonStart.js';
import { UserError } from '../common/errors.js';
import { dataDir, socketPath, userConfigPath } from '../common/paths.js';
import { LAUNCHD_LABEL, launchdPlistPath } from '../common/launchdAgentPath.js';
import { bootoutArgs, bootstrapArgs, type Launchctl } from '../platform/macos/launchctl.js';

/** The plist as recap writes it: each key one launchd.plist(5) documents for a LaunchAgent. */
export type LaunchdAgent = {
  Label: string;
  ProgramArguments: string[];
  EnvironmentVariables: Record<string, string>;
  RunAtLoad: true;
  KeepAlive: { SuccessfulExit: false };
  ProcessType: 'Interactive';
  StandardOutPath: string;
  StandardErrorPath: string;
};

/**
 * The agent for this Node and this recap, with macOS's paths whatever runs this (a dry run
 * shows on any system what a Mac would get). launchd hands an agent a bare environment
 * (no XDG_*, no $TMPDIR of the user's shell), so the socket, data and config the user's
 * own terminal finds are named in it: the daemon then listens where the CLI and hooks look.
 */
export function launchdAgent(env: NodeJS.ProcessEnv): LaunchdAgent {
  const data = dataDir(env, 'darwin');
  return {
    Label: LAUNCHD_LABEL,
    ProgramArguments: daemonCommand(),
    EnvironmentVariables: { ...DAEMON_ENVIRONMENT, RECAP_SOCKET: socketPath(env, 'darwin'), RECAP_DATA_DIR: data, RECAP_CONFIG: userConfigPath(env, 'darwin') },
    RunAtLoad: true,
    // Restarted when it fails, as recap.service's Restart=on-failure; a clean stop stays stopped.
    KeepAlive: { SuccessfulExit: false },
    // Every tool call of the agent waits on the daemon's answer: not a job for the throttled background band.
    ProcessType: 'Interactive',
    // The daemon logs to recapd.log itself; this holds what Node prints before that log opens.
    StandardOutPath: join(data, 'launchd.log'),
    StandardErrorPath: join(data, 'launchd.log'),
  };
}

export function renderPlist(agent: LaunchdAgent): string {
  return build(agent);
}

/** The plist at `file` as launchd would read it, or undefined when there is none or it is not a plist. */
export function readPlist(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof Uint8Array)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What `recap install launchd` does: the file it writes, its text, and the launchctl commands it runs. */
export type LaunchdPlan = { file: string; text: string; commands: string[][] };

export function planLaunchdInstall(env: NodeJS.ProcessEnv, uid: number): LaunchdPlan {
  const file = launchdPlistPath(env);
  return { file, text: renderPlist(launchdAgent(env)), commands: [bootoutArgs(uid, LAUNCHD_LABEL), bootstrapArgs(uid, file)] };
}

/**
 * Writes the plist and loads it: an agent loaded before is booted out first (launchctl will
 * not bootstrap a label it holds), so a second install takes the new plist.
 */
export function installLaunchd(plan: LaunchdPlan, launchctl: Launchctl): void {
  mkdirSync(join(plan.file, '..'), { recursive: true });
  writeFileSync(plan.file, plan.text, { mode: 0o644 });
  const [bootout, bootstrap] = plan.commands as [string[], string[]];
  launchctl(bootout);
  const loaded = launchctl(bootstrap);
  if (loaded.status !== 0) {
    throw new UserError(
      `recap wrote ${plan.file}, but launchctl ${bootstrap.join(' ')} failed (${loaded.stderr.trim() || `status ${loaded.status}`}); ` +
        `run that command yourself, or recap install launchd again`,
    );
  }
}

/**
 * Unloads recap's agent and removes its plist; the file removed, or none when there was
 * none. A plist of that name that is not recap's is left alone, and said so.
 */
export function uninstallLaunchd(env: NodeJS.ProcessEnv, uid: number, launchctl: Launchctl): string[] {
  const file = launchdPlistPath(env);
  if (!existsSync(file)) return [];
  if (readPlist(file)?.Label !== LAUNCHD_LABEL) throw new UserError(`${file} is not recap's launchd agent; recap left it and removed nothing`);
  // launchctl answers a label it does not hold with an error: the agent was not loaded, and that is fine.
  launchctl(bootoutArgs(uid, LAUNCHD_LABEL));
  rmSync(file, { force: true });
  return [file];
}
