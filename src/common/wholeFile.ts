// A file written whole or not at all: into a temporary file beside it, then renamed over it,
// so that a reader (an agent, a hook, recap itself) never sees half of one.
import { chmodSync, renameSync, writeFileSync } from 'node:fs';

export type Whole = {
  /** The file's permissions, through the umask as a new file's are. */
  mode: number;
  /** Set `mode` as it is, past the umask: a file that holds a secret. */
  exact?: boolean;
  /** The temporary file; beside the file (one file system, so the rename is atomic), named for this process. */
  temporary?: string;
};

export function writeWhole(file: string, text: string, { mode, exact = false, temporary = `${file}.${process.pid}.tmp` }: Whole): void {
  writeFileSync(temporary, text, { mode });
  if (exact) chmodSync(temporary, mode);
  renameSync(temporary, file);
}
