// The Node versions recap supports are said once in package.json's engines field; the
// README says the same, and the Node the tests run on (CI's) is one the field allows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const minimum = /^>=(\d+)\.(\d+)$/.exec(engines);

describe('the supported Node versions', () => {
  it('are a plain minimum in package.json', () => {
    expect(minimum, engines).not.toBeNull();
  });

  it("are the README's, and CI checks the same minimum", () => {
    const [, major, minor] = minimum!;
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`with Node ${major}.${minor} or newer`);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toContain(`a < ${major} || (a === ${major} && b < ${minor})`);
  });

  it('include the Node these tests run on', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const [, wantMajor, wantMinor] = minimum!.map(Number);
    expect(major > wantMajor! || (major === wantMajor && minor >= wantMinor!), `Node ${process.version} is not ${engines}`).toBe(true);
  });
});
