// `recap doctor` on macOS: recap's launchd agent, if installed, runs this recap and is loaded.
// The verdict is a pure function of what was found (launchdCheck), so each answer is tested
// without a Mac; checkLaunchd gathers the facts.
import { existsSync } from 'node:fs';
import type { Check } from '../common/check.js';
import { LAUNCHD_LABEL, launchdPlistPath } from '../common/launchdAgentPath.js';
import { launchdAgent, readPlist } from './installLaunchd.js';
import { bootstrapArgs, launchdState, printArgs, runLaunchctl, type Launchctl, type LaunchdState } from '../platform/macos/launchctl.js';

export type LaunchdFacts = {
  file: string;
  /** The plist as parsed; undefined when the file is there but is not a plist. */
  plist: Record<string, unknown> | undefined | 'absent';
  /** What this recap would write as ProgramArguments. */
  expected: string[];
  state: LaunchdState;
  uid: number;
};

const NAME = 'launchd';

export function launchdCheck(facts: LaunchdFacts): Check {
  const { file, plist, state } = facts;
  if (plist === 'absent') {
    return { name: NAME, ok: true, detail: 'no launchd agent: the daemon starts on first use (recap install launchd starts it at login and keeps it running)' };
  }
  if (plist === undefined || plist.Label !== LAUNCHD_LABEL) {
    return { name: NAME, ok: false, detail: `${file} is not recap's launchd agent (no Label ${LAUNCHD_LABEL})`, fix: 'recap install launchd (it writes the file again)' };
  }
  const args = Array.isArray(plist.ProgramArguments) ? plist.ProgramArguments.map(String) : [];
  if (args.join('\0') !== facts.expected.join('\0')) {
    return {
      name: NAME,
      ok: false,
      detail: `${file} runs ${args.join(' ') || 'nothing'}, not this recap (${facts.expected.join(' ')})`,
      fix: 'recap install launchd again (after an upgrade or a new Node, the agent still names the old one)',
    };
  }
  if (!state.loaded) {
    return {
      name: NAME,
      ok: false,
      detail: `${file} is there but launchd has not loaded it, so the daemon does not start at login`,
      fix: `launchctl ${bootstrapArgs(facts.uid, file).join(' ')} (or recap install launchd again)`,
    };
  }
  if (!state.running) return { name: NAME, ok: true, detail: `loaded, not running (stopped by recap stop, or it failed: see launchd.log in the data folder); ${file}` };
  return { name: NAME, ok: true, detail: `loaded and running${state.pid === undefined ? '' : ` (pid ${state.pid})`}; ${file}` };
}

export function checkLaunchd(env: NodeJS.ProcessEnv, uid: number, launchctl: Launchctl = runLaunchctl): Check {
  const file = launchdPlistPath(env);
  const present = existsSync(file);
  const args = printArgs(uid, LAUNCHD_LABEL);
  return launchdCheck({
    file,
    plist: present ? readPlist(file) : 'absent',
    expected: launchdAgent(env).ProgramArguments,
    state: present ? launchdState(args[1]!, launchctl(args)) : { loaded: false },
    uid,
  });
}
