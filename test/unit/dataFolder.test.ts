// Why recap's data folder cannot be used, in recap's words: given the system's error for it,
// then the message names the folder, what stands in the way and what to do.
import { describe, expect, it } from 'vitest';
import { unusable } from '../../src/common/dataFolder.js';

const DIR = '/home/ann/.local/share/recap';
const failure = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe("given recap's data folder cannot be made or written", () => {
  it.each([
    ['EACCES', /cannot be written \(EACCES\): make it yours and writable \(chown, chmod u\+rwx\), or set RECAP_DATA_DIR/],
    ['EROFS', /cannot be written \(EROFS\)/],
    ['EEXIST', /is a file, or lies under one, not a folder: move that file away/],
    ['ENOTDIR', /is a file, or lies under one/],
    ['ENOSPC', /cannot be used \(ENOSPC\): fix that, or set RECAP_DATA_DIR/],
  ])('when the system says %s, then the message says what to do', (code, message) => {
    const error = unusable(DIR, failure(code));
    expect(error.message).toContain(DIR);
    expect(error.message).toMatch(message);
    expect(error.name).toBe('DataFolderUnusable');
  });
});
