// The daemon's start settings are decided in common/daemonStart.ts; `npm start`, the README's
// first command, cannot import them, so this holds its script to them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_ENVIRONMENT, DAEMON_NODE_FLAGS } from '../../src/common/daemonStart.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('npm start', () => {
  it("starts the daemon with daemonStart.ts's Node flags and environment", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const environment = Object.entries(DAEMON_ENVIRONMENT).map(([name, value]) => `${name}=${value}`);
    expect(scripts.start).toBe([...environment, 'node', ...DAEMON_NODE_FLAGS, 'bin/recap.js', 'daemon'].join(' '));
  });
});
