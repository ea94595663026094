// This machine's id in recap's refs: random, made once per data folder, kept in `<data>/machine`.
// Not a secret and not a credential: it only keeps two machines' chains apart on a remote.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ID = /^[0-9a-f]{32}$/;

export function machineId(dataDir: string): string {
  const file = join(dataDir, 'machine');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (ID.test(id)) return id;
  } catch {
    // None yet: made below.
  }
  const id = randomBytes(16).toString('hex');
  try {
    // `wx`: two daemons racing on a fresh folder keep the first one's.
    writeFileSync(file, `${id}\n`, { mode: 0o600, flag: 'wx' });
    return id;
  } catch {
    const written = readFileSync(file, 'utf8').trim();
    if (ID.test(written)) return written;
    writeFileSync(file, `${id}\n`, { mode: 0o600 });
    return id;
  }
}
