// What stands at a config file's path is not always a text file: a project's
// .recap/config.conf may be a link to /dev/zero, a named pipe or a folder. Given each, when
// recap reads its config (the daemon at every call, `recap config check`), then it answers at
// once with what is wrong and keeps no value from it; a regular file still reads.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/common/configLayers.js';

const dir = mkdtempSync(join(tmpdir(), 'recap-config-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const USER = join(dir, 'user.conf');

describe("given a config file's path", () => {
  it.skipIf(process.platform !== 'linux')('when it is a link to an endless device, then it is refused at once', () => {
    const file = join(dir, 'zero.conf');
    symlinkSync('/dev/zero', file);
    expect(readConfigFile(file, {}, USER).problems).toEqual([`${file}: is not a regular file (a device, a pipe or a socket); a config file is a text file`]);
  });

  it('when it is a named pipe with no writer, then it is refused without waiting for one', () => {
    const file = join(dir, 'pipe.conf');
    execFileSync('mkfifo', [file]);
    expect(readConfigFile(file, {}, USER).problems).toEqual([`${file}: is not a regular file (a device, a pipe or a socket); a config file is a text file`]);
  });

  it('when it is a folder, then it says so', () => {
    const file = join(dir, 'folder.conf');
    mkdirSync(file);
    expect(readConfigFile(file, {}, USER).problems).toEqual([`${file}: is a folder; name the config file in it`]);
  });

  it('when it is larger than a config file may be, then it is refused', () => {
    const file = join(dir, 'big.conf');
    writeFileSync(file, `# ${'x'.repeat(2 * 1024 * 1024)}\nTOKEN_THRESHOLD=900\n`);
    const read = readConfigFile(file, {}, USER);
    expect(read.problems[0]).toMatch(/is \d+ bytes, over the 1048576 a config file may be$/);
    expect(read.layer.values).toEqual({});
  });

  it('when it is a regular file, then its values are read', () => {
    const file = join(dir, 'plain.conf');
    writeFileSync(file, 'TOKEN_THRESHOLD=900\n');
    expect(readConfigFile(file, {}, USER)).toMatchObject({ problems: [], layer: { values: { TOKEN_THRESHOLD: 900 } } });
  });
});
