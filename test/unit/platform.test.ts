// Where recap runs: a Windows Node is told plainly what recap needs and that WSL has it, by
// `recap doctor` and `recap daemon` alike; Linux and macOS are not stopped.
import { describe, expect, it } from 'vitest';
import { systemCheck, unsupportedPlatform } from '../../src/common/platform.js';

describe('unsupportedPlatform', () => {
  it('on Windows, says recap needs Unix sockets and a POSIX shell, and to run it under WSL', () => {
    const said = unsupportedPlatform('win32');
    expect(said?.why).toBe('recap does not run on Windows itself: it needs Unix domain sockets with Unix file permissions, and a POSIX shell (/bin/sh) for its hook launcher');
    expect(said?.fix).toBe('install Node, recap and your agent inside WSL 2 (Windows Subsystem for Linux) and run them there, where recap works as on Linux');
  });

  it.each(['linux', 'darwin', 'freebsd'] as const)('on %s, says nothing: recap runs there', (platform) => {
    expect(unsupportedPlatform(platform)).toBeUndefined();
  });
});

describe("recap doctor's system check", () => {
  it('on Windows, is the one failed check, with the same words and WSL as the fix', () => {
    expect(systemCheck('win32')).toEqual({ name: 'system', ok: false, detail: unsupportedPlatform('win32')!.why, fix: unsupportedPlatform('win32')!.fix });
  });

  it('on Linux and macOS, is absent: doctor checks as usual', () => {
    expect(systemCheck('linux')).toBeUndefined();
    expect(systemCheck('darwin')).toBeUndefined();
  });
});
