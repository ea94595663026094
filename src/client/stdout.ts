// Writing to the process's standard streams when they may be non-blocking pipes, for the
// commands that write a lot (recap log, export) and what they print beside it.
import { writeSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `bytes`. Standard output may be a non-blocking pipe: a write may take only
 * part, or nothing (EAGAIN) while the reader is behind; the rest is written when it has
 * caught up. A reader that stopped (recap log | head) ends the command quietly.
 */
export function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(process.exitCode ?? 0);
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

export const write = (fd: number, text: string): void => writeAll(fd, Buffer.from(text));
