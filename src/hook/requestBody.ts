// A hook request's body, read for the daemon's HTTP endpoints (the loopback hook endpoint and
// the launcher's Unix socket): whole up to the largest payload recap judges; past it only the
// first bytes, to name the event refused and to count a prompt as far as it goes.
import type { IncomingMessage } from 'node:http';
import { MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { HEAD_BYTES, MAX_HELD_BYTES, type RawInput } from './ingress.js';

const MAX_BODY = MAX_HOOK_PAYLOAD;
/**
 * A body up to this size is read whatever the others hold: the endpoints' connection limits
 * bound what that adds up to, and a hook's usual payload never meets "busy".
 */
const ALWAYS_READ_BYTES = 1024 * 1024;

/**
 * The body, up to MAX_BODY; past it (or past what all requests together may hold) only its
 * first bytes, to name the event refused.
 */
export function readBody(req: IncomingMessage, held: { bytes: number }): Promise<RawInput> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let released = false;
    const release = () => {
      if (!released) held.bytes -= size;
      released = true;
    };
    const settle = (body: RawInput) => {
      release();
      resolve(body);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      held.bytes += chunk.length;
      // A small body is always read whole (the way out, a prompt): only large ones wait for room.
      if (held.bytes > MAX_HELD_BYTES && size > ALWAYS_READ_BYTES && size <= MAX_BODY) {
        const head = Buffer.concat([...chunks, chunk])
          .subarray(0, HEAD_BYTES)
          .toString('utf8');
        chunks.length = 0;
        req.removeAllListeners('data');
        req.removeAllListeners('end');
        release();
        req.on('data', () => undefined);
        req.once('end', () => resolve({ kind: 'busy', head }));
        return;
      }
      if (size > MAX_BODY) {
        // The first MAX_BODY bytes are kept (a prompt is counted as far as them); the rest
        // is read and dropped: an answer sent while the client is still writing can be lost
        // to a reset, and a lost answer is an allow.
        const kept = chunk.subarray(0, chunk.length - (size - MAX_BODY));
        const prefix = Buffer.concat([...chunks, kept]).toString('utf8');
        chunks.length = 0;
        req.removeAllListeners('data');
        req.removeAllListeners('end');
        req.on('data', () => undefined);
        req.once('end', () => settle({ kind: 'oversized', head: prefix.slice(0, HEAD_BYTES), prefix }));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      const text = Buffer.concat(chunks, size).toString('utf8');
      settle({ kind: 'whole', text });
    });
    req.once('error', (error) => settle({ kind: 'failed', why: `the request could not be read (${error.message})` }));
  });
}
