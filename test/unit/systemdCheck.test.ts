// doctor's word on recap's systemd user service: none installed, the unit as this recap
// writes it, and one written by an older recap or for another Node (without the daemon's
// start settings), whose fix is to install it again.
import { describe, expect, it } from 'vitest';
import { systemdCheck } from '../../src/client/systemdCheck.js';

const FILE = '/home/u/.config/systemd/user/recap.service';
const unit = (start: string) => `[Unit]\nDescription=recap daemon\n\n[Service]\nType=simple\n${start}\nRestart=on-failure\n`;
const CURRENT = unit('ExecStart=/usr/bin/node --max-semi-space-size=8 /opt/recap/bin/recap.js daemon\nEnvironment=MALLOC_ARENA_MAX=2');

describe('systemdCheck', () => {
  it('passes when no unit is installed, saying the daemon starts on first use', () => {
    const check = systemdCheck({ file: FILE, unit: 'absent', expected: CURRENT });
    expect(check).toMatchObject({ name: 'systemd', ok: true });
    expect(check.detail).toMatch(/^no systemd unit: the daemon starts on first use/);
  });

  it('passes for the unit as this recap writes it, whatever else the user changed in it', () => {
    const edited = CURRENT.replace('Restart=on-failure', 'Restart=always');
    expect(systemdCheck({ file: FILE, unit: edited, expected: CURRENT })).toEqual({
      name: 'systemd',
      ok: true,
      detail: `starts this recap's daemon as recap install systemd writes it; ${FILE}`,
    });
  });

  it('fails for a unit an older recap wrote, naming the start settings it lacks and the commands that fix it', () => {
    const old = unit('ExecStart=/usr/bin/node /opt/recap/bin/recap.js daemon');
    expect(systemdCheck({ file: FILE, unit: old, expected: CURRENT })).toEqual({
      name: 'systemd',
      ok: false,
      detail: `${FILE} does not start the daemon as this recap would (missing: ExecStart=/usr/bin/node --max-semi-space-size=8 /opt/recap/bin/recap.js daemon; Environment=MALLOC_ARENA_MAX=2)`,
      fix: 'recap install systemd, then systemctl --user daemon-reload && systemctl --user restart recap.service (after an upgrade or a new Node, the unit still names the old one)',
    });
  });

  it('fails for a unit that adds a start line of its own, naming what it has', () => {
    const more = CURRENT.replace('Environment=MALLOC_ARENA_MAX=2', 'Environment=MALLOC_ARENA_MAX=2\nEnvironment=NODE_OPTIONS=--require=/tmp/x.js');
    const check = systemdCheck({ file: FILE, unit: more, expected: CURRENT });
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(
      'it has: ExecStart=/usr/bin/node --max-semi-space-size=8 /opt/recap/bin/recap.js daemon; Environment=MALLOC_ARENA_MAX=2; Environment=NODE_OPTIONS=--require=/tmp/x.js',
    );
  });

  it("leaves a recap.service that is not recap's alone", () => {
    const check = systemdCheck({ file: FILE, unit: '[Service]\nExecStart=/usr/bin/someone-else\n', expected: CURRENT });
    expect(check).toEqual({ name: 'systemd', ok: true, detail: `${FILE} is not recap's unit; recap leaves it alone` });
  });
});
