// A small tmpfs for the tests that fill a disk: whether this machine lets them mount one (as
// root), and the mount itself; each suite unmounts its own (umount -l) after each test.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a tmpfs can be mounted here, tried once on a folder of its own. */
export function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = join('/tmp', `recap-mount-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1M', 'tmpfs', dir]).status === 0;
  if (ok) spawnSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
  return ok;
}

/** Mounts a tmpfs of `size` (`1M`, `64k`) on `dir`, made if missing, only its owner let in. */
export function mountTmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
}
