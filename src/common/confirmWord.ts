// The word a user types to confirm a command where the system cannot tell who runs it: six
// letters (no l or o, which read as digits), 24^6 of them, drawn by a cryptographic generator.
import { randomInt } from 'node:crypto';

const LETTERS = 'abcdefghijkmnpqrstuvwxyz';

export function confirmWord(): string {
  let word = '';
  for (let i = 0; i < 6; i += 1) word += LETTERS[randomInt(LETTERS.length)];
  return word;
}
