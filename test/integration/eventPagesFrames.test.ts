// eventPages.ts's reading of the daemon's answers: a frame's length and body arrive in pieces
// of any size, several frames in one read or one frame over many, and every page comes out
// whole and in order. The peer is a socket that answers the `events` op as the daemon frames
// it, a byte per write, so the reads are cut where a real socket rarely cuts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader } from '../../src/common/frames.js';
import { eventPages } from '../../src/client/eventPages.js';

const LAST = 5;
/** Pages of more than SPARE_MIN bytes, each of another size (eventPages.ts reuses their buffers). */
let long = false;
const line = (seq: number) => ({
  seq,
  type: 'InteractionRecorded',
  version: 2,
  time: null,
  data: { job: 'j', text: `event ${seq} "quoted"${long ? ` ${String(seq).repeat(40_000 + 15_000 * (seq % 3))}` : ''}` },
});

/**
 * Two events a page, from the page asked for; none past LAST. In the usual form, as a daemon
 * that does not know `lines` answers, or in lines when asked and `inLines`.
 */
function answer(request: { id: number; fromSeq: number; lines?: boolean }, inLines: boolean): Buffer {
  const seqs = [request.fromSeq, request.fromSeq + 1].filter((seq) => seq <= LAST);
  const next = request.fromSeq + 2 <= LAST ? request.fromSeq + 2 : null;
  if (!inLines || request.lines !== true) return encodeFrame({ id: request.id, result: { events: seqs.map(line), next, lastSeq: LAST } });
  const lines = Buffer.from(seqs.map((seq) => `${JSON.stringify(line(seq))}\n`).join(''));
  const body = Buffer.concat([Buffer.from(`${JSON.stringify({ id: request.id, result: { next, lastSeq: LAST, bytes: lines.length } })}\n`), lines]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length, 0);
  return Buffer.concat([length, body]);
}

/** Writes `bytes` a byte at a time (long pages a thousand at a time), each write in a turn of its own. */
async function trickle(socket: Socket, bytes: Buffer): Promise<void> {
  const piece = long ? 1000 : 1;
  for (let at = 0; at < bytes.length; at += piece) {
    socket.write(bytes.subarray(at, at + piece));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('eventPages', () => {
  let dir: string;
  let server: Server;
  let inLines = false;
  const previous = process.env.RECAP_SOCKET;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recap-pages-'));
    process.env.RECAP_SOCKET = join(dir, 'recapd.sock');
    server = createServer((socket) => {
      const reader = new FrameReader();
      let writing = Promise.resolve();
      socket.on('data', (chunk) => {
        for (const frame of reader.push(chunk)) {
          if (frame.kind !== 'message') continue;
          const bytes = answer(frame.value as { id: number; fromSeq: number }, inLines);
          writing = writing.then(() => trickle(socket, bytes));
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(process.env.RECAP_SOCKET, resolve));
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    if (previous === undefined) delete process.env.RECAP_SOCKET;
    else process.env.RECAP_SOCKET = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts together answers that arrive a byte at a time, and gives every event once, in order', async () => {
    const lines: string[] = [];
    for await (const page of eventPages({ raw: true })) lines.push(page.lines().toString('utf8'));
    expect(lines.join('')).toBe(Array.from({ length: LAST }, (_, i) => `${JSON.stringify(line(i + 1))}\n`).join(''));
  });

  it('takes answers in lines as they come, and reads their events', async () => {
    inLines = true;
    try {
      const lines: string[] = [];
      // Asked for the events as stored by a daemon that does not know `stored`: its lines, said to be lines (recap export writes them as they are).
      for await (const page of eventPages({ raw: true, stored: true })) {
        expect(page.stored).toBe(false);
        lines.push(page.lines().toString('utf8'));
      }
      expect(lines.join('')).toBe(Array.from({ length: LAST }, (_, i) => `${JSON.stringify(line(i + 1))}\n`).join(''));
      const events: unknown[] = [];
      for await (const page of eventPages({})) events.push(...page.events());
      expect(events).toEqual(Array.from({ length: LAST }, (_, i) => line(i + 1)));
    } finally {
      inLines = false;
    }
  });

  it('gives every long page whole when their buffers are reused, in either form', async () => {
    long = true;
    try {
      for (const form of [false, true]) {
        inLines = form;
        const lines: string[] = [];
        for await (const page of eventPages({ raw: true })) lines.push(page.lines().toString('utf8'));
        expect(lines.join('')).toBe(Array.from({ length: LAST }, (_, i) => `${JSON.stringify(line(i + 1))}\n`).join(''));
      }
    } finally {
      long = false;
      inLines = false;
    }
  });
});
