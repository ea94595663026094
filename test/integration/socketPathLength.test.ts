// A socket path longer than a Unix socket may have: the kernel would cut it, and the daemon
// would listen on another file in another folder (one others may enter), answer nobody and
// outlive every stop. Through the real CLI: the daemon refuses to start and says which
// variable to shorten, exits at once, and makes no socket; `recap status` says the same.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeSandbox, runCli, sandbox } from '../helpers/daemon.js';

describe('given a socket path too long for a Unix socket', () => {
  const box = sandbox();
  const folder = join(box.dir, 'x'.repeat(120));
  mkdirSync(folder, { mode: 0o700 });
  const socket = join(folder, 'recapd.sock');
  const env = { RECAP_SOCKET: socket };
  afterAll(() => removeSandbox(box));

  it('when the daemon starts, then it refuses, names the variable to shorten, and exits 1 leaving no socket', async () => {
    const run = await runCli(box, ['daemon'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`recap: the socket file ${socket} is too long for a Unix socket \\(\\d+ bytes; at most \\d+ here.*\\): set a shorter XDG_RUNTIME_DIR, or RECAP_SOCKET\\n$`),
    );
    expect(existsSync(socket)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
    expect(readdirSync(dirname(folder)).filter((name) => name.startsWith('xxx') && name !== 'x'.repeat(120))).toEqual([]);
  });

  it('when a command starts the daemon, then it tells the same', async () => {
    const run = await runCli(box, ['status'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is too long for a Unix socket');
    expect(run.stderr).toContain('set a shorter XDG_RUNTIME_DIR, or RECAP_SOCKET');
  });
});
