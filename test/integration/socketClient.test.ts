// The socket client against a listener whose accept queue is full: connecting there fails
// with EAGAIN at once, and the client tries again until the listener accepts or time is up.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, DaemonBusy } from '../../src/client/socketClient.js';

// A Unix socket listener with the smallest queue that accepts nothing until told on stdin.
const LISTENER = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(0)
print('listening', flush=True)
sys.stdin.readline()
held = []
while True:
    held.append(s.accept()[0])
`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function fullQueue(): Promise<{ path: string; listener: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'recap-queue-'));
  const path = join(dir, 's.sock');
  const listener = spawn('python3', ['-c', LISTENER, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => {
    listener.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise((ready) => listener.stdout!.once('data', ready));
  // Fill the queue until the kernel says EAGAIN.
  for (let i = 0; i < 8; i += 1) {
    const code = await new Promise<string | undefined>((done) => {
      const socket = connect(path);
      cleanups.push(() => socket.destroy());
      socket.once('connect', () => done(undefined));
      socket.once('error', (error: NodeJS.ErrnoException) => done(error.code));
    });
    if (code === 'EAGAIN') return { path, listener };
  }
  throw new Error('the queue never filled');
}

describe('connecting while the accept queue is full', () => {
  it('tries again and connects once the listener accepts', async () => {
    const { path, listener } = await fullQueue();
    const connecting = Client.connect(path, 5000);
    setTimeout(() => listener.stdin!.write('accept\n'), 200);
    const client = await connecting;
    client.close();
  });

  it('gives up at the deadline saying the daemon is busy, not absent (so no second daemon is started)', async () => {
    const { path } = await fullQueue();
    const failure = Client.connect(path, 300);
    await expect(failure).rejects.toBeInstanceOf(DaemonBusy);
    await expect(failure).rejects.toThrow(/accepted no connection within 300 ms \(its queue is full\); try again/);
  });
});
