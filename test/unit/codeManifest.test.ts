// recap's installed code against the manifest `recap install` recorded: given the recorded
// files and the files found, the verdict, and what the user is told to do.
import { describe, expect, it } from 'vitest';
import { CODE_MANIFEST_VERSION, codeDifference, codeVerdict, type CodeManifest, type FileRecord, type InstalledCode } from '../../src/events/codeManifest.js';

const ROOT = '/usr/lib/node_modules/recap';
const PATH = '/home/ann/.local/share/recap/code-manifest.json';
const file = (sha256: string): FileRecord => [sha256, '1:2:3:33188:1700000000000'];
const FILES: Record<string, FileRecord> = {
  'package.json': file('a1'),
  'bin/recap.js': file('b1'),
  'dist/daemon/daemon.bundle.js': file('c1'),
  'node_modules/pino/pino.js': file('d1'),
  'node_modules/pino/README.md': ['', ''],
};
const recorded: CodeManifest = { format: CODE_MANIFEST_VERSION, written: 0, installedBy: 'claude', root: ROOT, recap: '0.1.0', files: FILES, folders: { '.': 'x' } };
const found = (files: Record<string, FileRecord>, more: Partial<InstalledCode> = {}): InstalledCode => ({ root: ROOT, recap: '0.1.0', files, folders: {}, ...more });

describe('given the manifest recap install recorded', () => {
  it('when every file has its recorded hash, then the code is verified', () => {
    // Other lstat facts (a copy, a restore) do not make a file changed: its content does.
    const restored = Object.fromEntries(Object.entries(FILES).map(([name, [sha]]) => [name, [sha, 'other'] as FileRecord]));
    expect(codeVerdict(PATH, recorded, found(restored))).toEqual({ state: 'verified', files: 5, manifest: PATH });
  });

  it('when a file changed, one was added and one is gone, then each is named, and the fix is recap install again or a reinstall', () => {
    const { 'bin/recap.js': _gone, ...rest } = FILES;
    const now = { ...rest, 'node_modules/pino/pino.js': file('evil'), 'node_modules/pino/lib/tools': file('new') };
    expect(codeDifference(FILES, now)).toEqual({ changed: ['node_modules/pino/pino.js'], added: ['node_modules/pino/lib/tools'], removed: ['bin/recap.js'] });
    const verdict = codeVerdict(PATH, recorded, found(now));
    expect(verdict).toMatchObject({ state: 'changed', files: ['node_modules/pino/pino.js', 'node_modules/pino/lib/tools', 'bin/recap.js'], command: 'recap install claude' });
    const { message } = verdict as { message: string };
    expect(message).toContain(
      "recap's code has changed since `recap install claude` recorded it (3 files: node_modules/pino/pino.js (changed), node_modules/pino/lib/tools (added), bin/recap.js (removed))",
    );
    expect(message).toContain('the recap daemon will not start');
    expect(message).toContain('run `recap install claude` again in your own terminal');
    expect(message).toContain('reinstall recap (in its clone: git status shows what changed; npm install builds it again; then npm link)');
  });

  it('when a file named only (never loaded) keeps its name, then it is not a change; when its name is gone, it is', () => {
    expect(codeVerdict(PATH, recorded, found({ ...FILES }))).toMatchObject({ state: 'verified' });
    const { 'node_modules/pino/README.md': _readme, ...withoutReadme } = FILES;
    expect(codeVerdict(PATH, recorded, found(withoutReadme))).toMatchObject({ state: 'changed', files: ['node_modules/pino/README.md'] });
  });

  it('when many files changed, then five are named and the rest counted', () => {
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`dist/f${i}.js`, file('x')]));
    const verdict = codeVerdict(PATH, { ...recorded, files: { ...FILES, ...many } }, found({ ...FILES, ...Object.fromEntries(Object.keys(many).map((n) => [n, file('y')])) }));
    expect((verdict as { message: string }).message).toContain(
      '8 files: dist/f0.js (changed), dist/f1.js (changed), dist/f2.js (changed), dist/f3.js (changed), dist/f4.js (changed), and 3 more',
    );
  });

  it('when the version differs (npm i -g recap@next), then the message leads with the upgrade and its fix', () => {
    const upgraded = found({ ...FILES, 'package.json': file('a2'), 'dist/daemon/daemon.bundle.js': file('c2') }, { recap: '0.2.0' });
    const { message } = codeVerdict(PATH, recorded, upgraded) as { message: string };
    expect(message).toMatch(/^recap's code is version 0\.2\.0 now, but `recap install claude` recorded version 0\.1\.0 \(2 files: /);
    expect(message).toContain('If you upgraded recap, run `recap install claude` again in your own terminal');
  });

  it('when recap runs from another folder than the one recorded, then it does not start, and says to install from the one in use', () => {
    const verdict = codeVerdict(PATH, recorded, found(FILES, { root: '/home/ann/.nvm/versions/node/v22/lib/node_modules/recap' }));
    expect(verdict).toMatchObject({ state: 'changed', files: [] });
    expect((verdict as { message: string }).message).toContain(`but \`recap install claude\` recorded recap's code at ${ROOT}`);
  });

  it('when there is no manifest, then the code is unverified (a dev run, a test), and no files need be read', () => {
    expect(codeVerdict(PATH, undefined, undefined)).toEqual({ state: 'unverified', why: `no manifest of recap's code at ${PATH} (recap install <agent> writes it)` });
  });

  it('when the manifest cannot be read, then the daemon does not start', () => {
    const verdict = codeVerdict(PATH, 'not valid JSON', undefined);
    expect(verdict).toMatchObject({ state: 'changed', command: 'recap install <agent>' });
    expect((verdict as { message: string }).message).toContain(`the manifest of recap's code at ${PATH} cannot be read (not valid JSON)`);
  });
});
