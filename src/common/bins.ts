// The package's executables, by absolute path. Node built-ins only.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECAP_BIN = resolve(fileURLToPath(new URL('../../bin/recap.js', import.meta.url)));
export const RECAP_HOOK_BIN = resolve(fileURLToPath(new URL('../../bin/recap-hook.cjs', import.meta.url)));
/** The package root: its bin/ and dist/ are recap's installed code, protected from the agent. */
export const PACKAGE_ROOT = dirname(dirname(RECAP_BIN));
/**
 * The programs bin/recap-hook.sh posts a hook call with, by these absolute paths only (one on
 * PATH could be anyone's): perl running bin/recap-launch.pl, or curl where there is no perl.
 */
export const PERL = '/usr/bin/perl';
export const CURL = '/usr/bin/curl';
