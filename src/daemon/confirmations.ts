// The words a user types to confirm one of their commands where the system cannot tell who
// sent it (src/events/caller.ts, whenCallerUnknown): each asked for one command, good once,
// for two minutes. The client asks for it on its own controlling terminal (client/terminalConfirm.ts).
import { confirmWord } from '../common/confirmWord.js';

const LIFETIME_MS = 120_000;

export class Confirmations {
  private readonly pending = new Map<string, { command: string; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new word for `command`. */
  ask(command: string): string {
    this.forgetOld();
    const word = confirmWord();
    this.pending.set(word, { command, until: this.now() + LIFETIME_MS });
    return word;
  }

  /**
   * Whether `word` was asked for `command` and not used or expired: it is used up. A wrong
   * word voids every word asked for that command, so words cannot be guessed one by one.
   */
  take(command: string, word: unknown): boolean {
    if (word === undefined) return false;
    const asked = typeof word === 'string' ? this.pending.get(word) : undefined;
    if (asked !== undefined && asked.command === command && asked.until >= this.now()) {
      this.pending.delete(word as string);
      return true;
    }
    for (const [pending, { command: of }] of this.pending) if (of === command) this.pending.delete(pending);
    return false;
  }

  private forgetOld(): void {
    const now = this.now();
    for (const [word, asked] of this.pending) if (asked.until < now) this.pending.delete(word);
  }
}
