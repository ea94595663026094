// Which systems recap runs on. It needs Unix domain sockets with Unix file modes (its socket
// and folders are the user's alone) and a POSIX shell (/bin/sh runs the hook launcher): Linux
// and macOS have them, and so does Linux under WSL; a Windows Node has neither as recap uses them.

/** Why recap cannot run on `platform`, and what to do instead; undefined where it runs. */
export function unsupportedPlatform(platform: NodeJS.Platform): { why: string; fix: string } | undefined {
  if (platform !== 'win32') return undefined;
  return {
    why: 'recap does not run on Windows itself: it needs Unix domain sockets with Unix file permissions, and a POSIX shell (/bin/sh) for its hook launcher',
    fix: 'install Node, recap and your agent inside WSL 2 (Windows Subsystem for Linux) and run them there, where recap works as on Linux',
  };
}
