// Before listening: a socket file nobody answers on is left over from a daemon that died,
// and is removed; one that answers belongs to a live daemon, or to some other program, and
// we must not take it over; anything else at the path is not ours to remove.
import { lstatSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { encodeFrame, FrameReader } from './frames.js';

export class SocketInUse extends Error {}

/** How long a listener has to answer a ping before it is taken for something else than recap. */
const PING_MS = 1000;

export async function clearStaleSocket(path: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isSocket()) {
    throw new SocketInUse(`${path} exists and is not a socket; remove it or point RECAP_SOCKET elsewhere`);
  }
  const listener = await probe(path);
  if (listener === 'nobody') {
    unlinkSync(path);
    return;
  }
  if (listener === 'other') throw new SocketInUse(`a program that is not recap listens on ${path}; stop it, or point RECAP_SOCKET elsewhere`);
  throw new SocketInUse(`another recap daemon is listening on ${path} (${listener}); recap stop ends it`);
}

/** Who answers on `path`: nobody, a recap daemon (its version), or some other program. */
function probe(path: string): Promise<'nobody' | 'other' | string> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let connected = false;
    const reader = new FrameReader(64 * 1024);
    const done = (answer: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done('other'), PING_MS);
    socket.once('connect', () => {
      connected = true;
      socket.write(encodeFrame({ id: 'stale-socket-probe', op: 'ping' }));
    });
    socket.on('data', (chunk) => {
      try {
        for (const frame of reader.push(chunk)) {
          const version = frame.kind === 'message' ? (frame.value as { result?: { version?: unknown } }).result?.version : undefined;
          done(typeof version === 'string' ? `version ${version}` : 'other');
        }
      } catch {
        done('other');
      }
    });
    socket.once('error', () => done(connected ? 'other' : 'nobody'));
    socket.once('close', () => done('other'));
  });
}
