// The daemon's Node options are the same wherever it is started: autostart and `recap install
// systemd` take them from DAEMON_NODE_FLAGS; the shipped unit and `npm start` spell them out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../src/common/daemonFlags.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe("the daemon's Node options", () => {
  it('cap the young generation', () => {
    expect(DAEMON_NODE_FLAGS).toContain('--max-semi-space-size=4');
  });

  it('are those of the shipped systemd unit and of npm start', () => {
    const unit = readFileSync(join(ROOT, 'systemd', 'recap.service'), 'utf8');
    expect(unit).toContain(`ExecStart=/usr/bin/env node ${DAEMON_NODE_FLAGS.join(' ')} %h/.local/lib/recap/bin/recap.js daemon`);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`node ${DAEMON_NODE_FLAGS.join(' ')} bin/recap.js daemon`);
  });
});
