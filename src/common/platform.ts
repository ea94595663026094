// Which systems recap runs on. It needs Unix domain sockets with Unix file modes (its socket
// and folders are the user's alone) and a POSIX shell (/bin/sh runs the hook launcher): Linux
// and macOS have them, and so does Linux under WSL; a Windows Node has neither as recap uses them.
import type { Check } from './check.js';

/** Why recap cannot run on `platform`, and what to do instead; undefined where it runs. */
export function unsupportedPlatform(platform: NodeJS.Platform): { why: string; fix: string } | undefined {
  if (platform !== 'win32') return undefined;
  return {
    why: 'recap does not run on Windows itself: it needs Unix domain sockets with Unix file permissions, and a POSIX shell (/bin/sh) for its hook launcher',
    fix: 'install Node, recap and your agent inside WSL 2 (Windows Subsystem for Linux) and run them there, where recap works as on Linux',
  };
}

/**
 * What `recap doctor` shows on a system recap does not run on: this one check, since every
 * other would fail without saying why. Undefined where recap runs (doctor checks as usual).
 */
export function systemCheck(platform: NodeJS.Platform): Check | undefined {
  const unsupported = unsupportedPlatform(platform);
  return unsupported && { name: 'system', ok: false, detail: unsupported.why, fix: unsupported.fix };
}
