// What a command reads from a file or its standard input: a summary, an interaction, the
// agent's status for the status line.
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { readRegularFile } from '../common/regularFile.js';
import { UsageError } from './jobCommands.js';

export async function readInput(file: string | undefined, what: string): Promise<string> {
  if (file !== undefined && file !== '-') return readTextFile(file, what);
  if (process.stdin.isTTY) process.stderr.write(`recap: reading the ${what} from stdin; end it with Ctrl-D\n`);
  // A stream, not readFileSync(0): stdin may be a non-blocking pipe.
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A file named with --file: a regular file of at most MAX_HOOK_PAYLOAD (a device or a pipe named by mistake would be read forever). */
function readTextFile(file: string, what: string): string {
  const read = readRegularFile(file, MAX_HOOK_PAYLOAD);
  if ('bytes' in read) return read.bytes.toString('utf8');
  if ('not' in read)
    throw new UsageError(
      read.not === 'folder' ? `${file} is a folder: give the file that holds the ${what}` : `${file} is not a regular file: give the file that holds the ${what}, or - for stdin`,
    );
  if ('tooLarge' in read) throw new UsageError(`${file} is ${describeBytes(read.tooLarge)}, over the ${describeBytes(MAX_HOOK_PAYLOAD)} recap reads`);
  throw new UsageError(`cannot read ${file} (${read.unreadable}): ${read.unreadable === 'ENOENT' ? 'there is no such file' : 'make it readable by you'}`);
}
