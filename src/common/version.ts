// recap's version: the one its package.json says, read from there alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './bins.js';

/** The version in the package.json of the recap at `root` (this one by default); 'unknown' when it cannot be read. */
export function recapVersion(root = PACKAGE_ROOT): string {
  try {
    return String((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version);
  } catch {
    return 'unknown';
  }
}
