// The transcript reader on real files: byte-exact offsets whatever the bytes, a half-written
// line waits for its end, and anything but a regular file says nothing at once.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usageOf } from '../../src/agents/claude/transcript.js';
import { TranscriptReader } from '../../src/daemon/transcript.js';

const dir = mkdtempSync(join(tmpdir(), 'recap-transcript-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: string, input = 10) =>
  `${JSON.stringify({ type: 'assistant', requestId: `r-${id}`, message: { id, model: 'm', usage: { input_tokens: input, output_tokens: 1 } } })}\n`;
const keys = (news: { usage: { key: string }[] }) => news.usage.map((u) => u.key);

describe('the transcript reader', () => {
  it('keeps byte offsets exact after invalid UTF-8, so the next line is read whole', async () => {
    const path = join(dir, 'binary.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3, 0x0a]), Buffer.from(line('a'))]));
    const reader = new TranscriptReader(usageOf);
    expect(keys(await reader.read(path))).toEqual(['a:r-a']);
    appendFileSync(path, line('b'));
    expect(keys(await reader.read(path))).toEqual(['b:r-b']);
  });

  it('waits for a half-written line to end, then reads it once', async () => {
    const path = join(dir, 'half.jsonl');
    const whole = line('c', 77);
    writeFileSync(path, whole.slice(0, 20));
    const reader = new TranscriptReader(usageOf);
    expect(await reader.read(path)).toEqual({ usage: [], machine: [] });
    appendFileSync(path, whole.slice(20));
    expect(await reader.read(path)).toMatchObject({ usage: [{ key: 'c:r-c', input: 77 }], contextTokens: 77 });
    expect(keys(await reader.read(path))).toEqual([]);
  });

  it('says nothing, at once, for a FIFO, a directory, a symlink and a missing file', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const reader = new TranscriptReader(usageOf);
    for (const path of [fifo, dir, '/dev/zero', join(dir, 'missing.jsonl')]) expect(await reader.read(path)).toEqual({ usage: [], machine: [] });
  });

  it.each([null, [], 42, 'x', true, { type: 'assistant', message: null }, { type: 'assistant', message: { id: 'i', usage: 5 } }])(
    'usageOf(%j) is nothing, not an error',
    (value) => {
      expect(usageOf(value)).toBeUndefined();
    },
  );
});
