// What a command reads from a file or its standard input: a summary, an interaction, the
// agent's status for the status line.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { UsageError } from './jobCommands.js';

export async function readInput(file: string | undefined, what: string): Promise<string> {
  if (file !== undefined && file !== '-') return readTextFile(file, what);
  if (process.stdin.isTTY) process.stderr.write(`recap: reading the ${what} from stdin; end it with Ctrl-D\n`);
  // A stream, not readFileSync(0): stdin may be a non-blocking pipe.
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A file named with --file: a regular file of at most MAX_HOOK_PAYLOAD (a device or a pipe
 * named by mistake would be read forever), opened without waiting for a pipe's writer.
 */
function readTextFile(file: string, what: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new UsageError(`${file} is a folder: give the file that holds the ${what}`);
    if (!stat.isFile()) throw new UsageError(`${file} is not a regular file: give the file that holds the ${what}, or - for stdin`);
    if (stat.size > MAX_HOOK_PAYLOAD) throw new UsageError(`${file} is ${describeBytes(stat.size)}, over the ${describeBytes(MAX_HOOK_PAYLOAD)} recap reads`);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot read ${file} (${code}): ${code === 'ENOENT' ? 'there is no such file' : 'make it readable by you'}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
