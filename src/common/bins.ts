// The package's executables, by absolute path. Node built-ins only.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECAP_BIN = resolve(fileURLToPath(new URL('../../bin/recap.js', import.meta.url)));
export const RECAP_HOOK_BIN = resolve(fileURLToPath(new URL('../../bin/recap-hook.cjs', import.meta.url)));
