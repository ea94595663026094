// The package's executables, by absolute path. Node built-ins only.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECAP_BIN = resolve(fileURLToPath(new URL('../../bin/recap.js', import.meta.url)));
export const RECAP_HOOK_BIN = resolve(fileURLToPath(new URL('../../bin/recap-hook.cjs', import.meta.url)));
/** The package root: its bin/ and dist/ are recap's installed code, protected from the agent. */
export const PACKAGE_ROOT = dirname(dirname(RECAP_BIN));
/** The curl bin/recap-hook.sh runs, by this absolute path only (a curl on PATH could be anyone's). */
export const CURL = '/usr/bin/curl';
