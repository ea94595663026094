// Where a path really leads, read from a real disk: the one-call answer for a path without
// links (realpath of its folder, lstat of its last part) must agree with following it part by part.
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkFollower } from '../../src/common/linkFollower.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'recap-links-')));
const secret = join(root, 'secret');
mkdirSync(join(secret, 'inner'), { recursive: true });
writeFileSync(join(secret, 'token'), 'x');
mkdirSync(join(root, 'project', 'src'), { recursive: true });
writeFileSync(join(root, 'project', 'src', 'a.ts'), '');
symlinkSync(join(secret, 'token'), join(root, 'project', 'src', 'leaf'));
symlinkSync(secret, join(root, 'project', 'folder'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const follow = (path: string) => linkFollower()(path);

describe('linkFollower', () => {
  it('leads a path without links where it is spelled, existing or not', () => {
    expect(follow(join(root, 'project', 'src', 'a.ts'))).toBe(join(root, 'project', 'src', 'a.ts'));
    expect(follow(join(root, 'project', 'src', 'new.ts'))).toBe(join(root, 'project', 'src', 'new.ts'));
    expect(follow(join(root, 'missing', 'deeper', 'x'))).toBe(join(root, 'missing', 'deeper', 'x'));
  });

  it('follows a link that is the last part of the path', () => {
    expect(follow(join(root, 'project', 'src', 'leaf'))).toBe(join(secret, 'token'));
  });

  it('follows a link that is a folder on the way', () => {
    expect(follow(join(root, 'project', 'folder', 'inner', 'x'))).toBe(join(secret, 'inner', 'x'));
    expect(follow(join(root, 'project', 'folder', 'token'))).toBe(join(secret, 'token'));
  });

  it('takes `..` after a link physically, as the kernel does', () => {
    expect(follow(`${join(root, 'project', 'folder', 'inner')}/../token`)).toBe(join(secret, 'token'));
  });

  it('spells a path with `.` or `//` as the kernel reads it', () => {
    expect(follow(`${join(root, 'project')}//./src/a.ts`)).toBe(join(root, 'project', 'src', 'a.ts'));
  });

  it("does not follow /proc/self, whose links are the daemon's", () => {
    expect(follow('/proc/self/cwd/x')).toBe('/proc/self/cwd/x');
    expect(follow('/proc/self/fd/0')).toBe('/proc/self/fd/0');
  });

  it.skipIf(process.platform !== 'linux')("follows another process's open file in /proc to the file itself", () => {
    const fd = openSync(join(secret, 'token'), 'r');
    try {
      // This process stands for another one: the follower never reads `self`, only a pid.
      expect(follow(`/proc/${process.pid}/fd/${fd}`)).toBe(join(secret, 'token'));
      expect(follow(`/proc/${process.pid}/cwd/x`)).toBe(join(process.cwd(), 'x'));
    } finally {
      closeSync(fd);
    }
  });
});
