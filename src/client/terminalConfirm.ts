// Confirmation at the user's own terminal, for a command whose caller this system cannot
// tell (src/events/caller.ts, whenCallerUnknown): asked on the controlling terminal
// (/dev/tty), never on stdin, so a program that pipes recap's input has nothing to answer
// with, and a process with no terminal (an agent's shell tool) cannot confirm at all.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { confirmWord } from '../common/confirmWord.js';
import { UserError } from '../common/errors.js';
import { RemoteError } from './socketClient.js';

const MAX_ANSWER = 256;

/** The line typed at this process's terminal after `question`; undefined when it has none. */
export function askAtTerminal(question: string): string | undefined {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return undefined;
  }
  try {
    writeSync(fd, question);
    const byte = Buffer.alloc(1);
    let line = '';
    while (line.length < MAX_ANSWER && readSync(fd, byte, 0, 1, null) === 1 && byte[0] !== 0x0a) line += String.fromCharCode(byte[0]!);
    return line.trim();
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Sends a request; where the daemon asks for the user's confirmation (`unconfirmed`), asks
 * at the terminal and sends it again with the word typed.
 */
export async function withConfirmation<T>(send: (confirm?: string) => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof RemoteError) || error.code !== 'unconfirmed') throw error;
    const typed = askAtTerminal(`recap: ${error.message}\nword: `);
    if (typed === undefined) throw new UserError(`${error.message}; this process has no terminal to confirm it at: run it in your own terminal`);
    try {
      return await send(typed);
    } catch (again) {
      if (again instanceof RemoteError && again.code === 'unconfirmed')
        throw new UserError('the word typed was not the one recap asked for, so nothing was done: run the command again');
      throw again;
    }
  }
}

/** Confirmation of a command run here, not by the daemon: the word is shown on the same terminal it is typed at. */
export function confirmHere(question: string): void {
  const word = confirmWord();
  const typed = askAtTerminal(`recap: ${question}: to confirm it, type ${word}\nword: `);
  if (typed === undefined) throw new UserError(`${question}, and this process has no terminal to confirm it at: run it in your own terminal`);
  if (typed !== word) throw new UserError('the word typed was not the one recap asked for, so nothing was done: run the command again');
}
