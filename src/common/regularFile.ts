// A file the user named, read only when it is what it claims to be: a regular file of a
// bounded size. A link to /dev/zero or a named pipe would be read forever; it is opened without
// waiting for a pipe's writer, and told apart before a byte is read. Each caller says what is
// wrong in its own words.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

export type RegularFile = { bytes: Buffer } | { not: 'folder' | 'regular' } | { tooLarge: number } | { unreadable: string };

/** The bytes of `path` if it is a regular file of at most `maxBytes`, else why not. */
export function readRegularFile(path: string, maxBytes: number): RegularFile {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { not: 'folder' };
    if (!stat.isFile()) return { not: 'regular' };
    if (stat.size > maxBytes) return { tooLarge: stat.size };
    return { bytes: readFileSync(fd) };
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
