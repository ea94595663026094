// `recap doctor` on Linux: recap's systemd user service, if installed, starts this recap's
// daemon as `recap install systemd` writes it now. A unit written by an older recap, or for
// another Node, keeps running what it names (and without the daemon's start settings) until
// it is installed again. The verdict is a pure function of what was found (systemdCheck), so
// each answer is tested on its own; checkSystemd gathers the facts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../common/check.js';
import { renderUnits, systemdUserDir } from './installSystemd.js';

export type SystemdFacts = {
  file: string;
  /** The installed recap.service's text; 'absent' when there is none. */
  unit: string | 'absent';
  /** The unit as this recap writes it. */
  expected: string;
};

const NAME = 'systemd';
const RESTART = 'systemctl --user daemon-reload && systemctl --user restart recap.service';

/** The lines that make the daemon what it is: the command and its environment, in order. */
function startLines(unit: string): string[] {
  return unit.split('\n').filter((line) => /^(ExecStart|Environment)=/.test(line.trim()));
}

export function systemdCheck(facts: SystemdFacts): Check {
  const { file, unit } = facts;
  if (unit === 'absent') {
    return { name: NAME, ok: true, detail: 'no systemd unit: the daemon starts on first use (recap install systemd has systemd start it with its socket)' };
  }
  if (!unit.includes('recap')) return { name: NAME, ok: true, detail: `${file} is not recap's unit; recap leaves it alone` };
  const installed = startLines(unit);
  const expected = startLines(facts.expected);
  if (installed.join('\n') === expected.join('\n')) return { name: NAME, ok: true, detail: `starts this recap's daemon as recap install systemd writes it; ${file}` };
  const missing = expected.filter((line) => !installed.includes(line));
  return {
    name: NAME,
    ok: false,
    detail: `${file} does not start the daemon as this recap would (${missing.length > 0 ? `missing: ${missing.join('; ')}` : `it has: ${installed.join('; ') || 'no ExecStart'}`})`,
    fix: `recap install systemd, then ${RESTART} (after an upgrade or a new Node, the unit still names the old one)`,
  };
}

export function checkSystemd(env: NodeJS.ProcessEnv): Check {
  const file = join(systemdUserDir(env), 'recap.service');
  let unit: string;
  try {
    unit = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') unit = 'absent';
    else return { name: NAME, ok: false, detail: `cannot read ${file} (${code ?? 'error'})`, fix: `check the file's permissions, or recap install systemd to write it again` };
  }
  return systemdCheck({ file, unit, expected: renderUnits()['recap.service'] });
}
