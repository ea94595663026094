// The framing both ends of the socket use: frames come out whole however the bytes are cut.
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, framesOf, frameWrites } from '../../src/common/frames.js';

const messages = [
  { id: 1, op: 'ping' },
  { id: 2, text: 'é'.repeat(300) },
  { id: 3, op: 'check', job: 'j' },
];

/** Pushes `bytes` in pieces of `size` bytes; every message read. */
function readInPieces(bytes: Buffer, size: number, reader = new FrameReader()): unknown[] {
  const read: unknown[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    for (const frame of reader.push(bytes.subarray(at, at + size))) read.push(frame.kind === 'message' ? frame.value : frame);
  }
  return read;
}

describe('frames', () => {
  it('reads the messages of one buffer, whatever pieces it comes in', () => {
    const bytes = framesOf(messages.map((m) => JSON.stringify(m)));
    for (const size of [1, 3, 4, 5, 7, 64, bytes.length]) expect(readInPieces(bytes, size)).toEqual(messages);
  });

  it('writes each message as its 4-byte big-endian UTF-8 length and its JSON, one after another', () => {
    const byHand = messages.map((m) => {
      const body = Buffer.from(JSON.stringify(m), 'utf8');
      const header = Buffer.alloc(4);
      header.writeUInt32BE(body.length, 0);
      return Buffer.concat([header, body]);
    });
    expect(framesOf(messages.map((m) => JSON.stringify(m)))).toEqual(Buffer.concat(byHand));
    expect(encodeFrame(messages[1])).toEqual(byHand[1]);
  });

  it('writes a frame given in parts as its length and its parts, the same bytes as the frame given whole', () => {
    const texts = messages.map((m) => JSON.stringify(m));
    const [first, second, third] = texts.map((t) => Buffer.from(t));
    const parts = [second!.subarray(0, 5), second!.subarray(5, 300), second!.subarray(300)];
    const writes = frameWrites([texts[0]!, parts, first!, third!]);
    expect(Buffer.concat(writes)).toEqual(framesOf([texts[0]!, texts[1]!, texts[0]!, texts[2]!]));
    // The parts themselves go out, not a copy: a page of megabytes is not copied to be sent.
    expect(writes).toContain(parts[1]);
    expect(readInPieces(Buffer.concat(frameWrites([parts])), 7)).toEqual([messages[1]]);
  });

  it('counts a frame that has not all come as pending, and reads it once it has', () => {
    const big = { id: 9, text: 'x'.repeat(200_000) };
    const bytes = encodeFrame(big);
    const reader = new FrameReader();
    expect(readInPieces(bytes.subarray(0, 150_000), 1000, reader)).toEqual([]);
    expect(reader.pending).toBe(150_000);
    expect(readInPieces(bytes.subarray(150_000), 1000, reader)).toEqual([big]);
    expect(reader.pending).toBe(0);
  });

  it('stops at a frame over the limit and says how long it was', () => {
    const reader = new FrameReader(100);
    const bytes = Buffer.concat([encodeFrame({ id: 1 }), encodeFrame({ id: 2, text: 'y'.repeat(200) }), encodeFrame({ id: 3 })]);
    const events = reader.push(bytes);
    expect(events).toEqual([
      { kind: 'message', value: { id: 1 } },
      { kind: 'oversized', length: expect.any(Number) },
    ]);
    expect(reader.push(encodeFrame({ id: 4 }))).toEqual([]);
  });
});
