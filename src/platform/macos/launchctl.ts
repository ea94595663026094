// launchctl, the one way recap speaks to launchd: the commands it runs (built here, run by one
// small runner, so a test checks each argv without launchctl) and what it makes of
// `launchctl print`'s answer. launchctl(1) calls that output "not API": the parser reads only
// the first line and `state = `, and takes anything else for "not loaded".
import { spawnSync } from 'node:child_process';

/** launchctl's absolute path: one found on PATH could be anyone's. */
export const LAUNCHCTL = '/bin/launchctl';

/** The user's GUI domain, where a LaunchAgent of the logged-in user runs. */
export const guiDomain = (uid: number): string => `gui/${uid}`;

/** Loads the agent's plist into the user's domain; launchd starts it (RunAtLoad). */
export const bootstrapArgs = (uid: number, plist: string): string[] => ['bootstrap', guiDomain(uid), plist];

/** Unloads the agent by its service target; launchd stops its process. */
export const bootoutArgs = (uid: number, label: string): string[] => ['bootout', `${guiDomain(uid)}/${label}`];

/** Asks for the agent's state, which `launchdState` reads. */
export const printArgs = (uid: number, label: string): string[] => ['print', `${guiDomain(uid)}/${label}`];

export type Ran = { status: number | null; stdout: string; stderr: string };
export type Launchctl = (args: string[]) => Ran;

/** Runs launchctl with `args` and no shell; a launchctl that cannot start answers as a failure. */
export const runLaunchctl: Launchctl = (args) => {
  const ran = spawnSync(LAUNCHCTL, args, { encoding: 'utf8', timeout: 10_000 });
  if (ran.error) return { status: null, stdout: '', stderr: `${LAUNCHCTL} could not run (${ran.error.message})` };
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
};

/** What launchd says of recap's agent: not loaded, or loaded and running (with its pid) or not. */
export type LaunchdState = { loaded: false } | { loaded: true; running: true; pid: number | undefined } | { loaded: true; running: false };

/**
 * Reads `launchctl print gui/<uid>/<label>`: a loaded service prints a block that starts with
 * `gui/<uid>/<label> = {` and holds `state = running` (or `not running`, `waiting`, ...); a
 * service launchd does not know ends launchctl with status 113 and `Could not find service`.
 */
export function launchdState(target: string, ran: Ran): LaunchdState {
  const lines = ran.stdout.split('\n');
  if (ran.status !== 0 || lines[0]?.trim() !== `${target} = {`) return { loaded: false };
  // The service's own lines are indented once; the blocks inside it (coalitions, endpoints) have a state of their own.
  const own = (key: string) =>
    lines
      .find((line) => line.startsWith(`\t${key} = `))
      ?.slice(key.length + 4)
      .trim();
  if (own('state') !== 'running') return { loaded: true, running: false };
  const pid = Number(own('pid'));
  return { loaded: true, running: true, pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined };
}
