// Everything recap asks of the operating system goes through src/platform: no file outside it
// reads /proc or runs ps, lsof, ss or launchctl. The path rules spell /proc too, as text an
// agent's command may hold: each such file is named here with why it may.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { platform } from '../../src/platform/choose.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Files outside src/platform that spell /proc, and why that is not reading it. */
const SPELLS_PROC: Record<string, string> = {
  'src/events/pathNames.ts': "text analysis: names /proc/self/cwd and /proc/<pid>/root spellings in an agent's command",
  'src/events/protection.ts': "text analysis: the protection rules deny /proc spellings that lead to recap's files",
  'src/common/linkFollower.ts':
    "follows links on the disk: a path the agent names through another process's /proc links (fd/N, cwd, root, exe) is read to the file it names, as any link is; /proc/self is the daemon's and stays as spelled",
  'src/events/recapProcessPaths.ts': "text analysis: a path or code string that reaches into /proc/<pid> of recap's daemon is denied",
};

/** /proc in code (a string, a template, a regular expression), or a program recap must ask only through the platform (by name or by path). */
const READS_PROC = /\/+\+?proc\b/;
const RUNS = /['"`](?:\/[\w./-]*\/)?(ps|lsof|ss|launchctl)['"`]/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mjs|js|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The file's code without its comments (a comment may name /proc or ps freely). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

const outside = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin')).filter((p) => !p.endsWith('.cjs')), ...sources(join(ROOT, 'scripts'))]
  .map((path) => relative(ROOT, path))
  .filter((path) => !path.startsWith('src/platform/'));

describe('the platform seam', () => {
  it('is the only place that reads /proc (the path rules spell it as text, each for a reason given)', () => {
    const readers = outside.filter((path) => READS_PROC.test(code(readFileSync(join(ROOT, path), 'utf8'))) && SPELLS_PROC[path] === undefined);
    expect(readers).toEqual([]);
  });

  it('is the only place that runs ps, lsof, ss or launchctl', () => {
    const runners = outside.filter((path) => RUNS.test(code(readFileSync(join(ROOT, path), 'utf8'))));
    expect(runners).toEqual([]);
  });

  it('catches a read of /proc or a run of ps written outside it (the guard can fail)', () => {
    expect(READS_PROC.test(code("readFileSync(`/proc/${pid}/stat`, 'utf8')"))).toBe(true);
    expect(READS_PROC.test(code("readlinkSync('/proc/self/fd/2')"))).toBe(true);
    expect(RUNS.test(code("execFile('/bin/ps', ['-A'])"))).toBe(true);
    expect(RUNS.test(code("spawnSync('launchctl', ['bootstrap'])"))).toBe(true);
    expect(RUNS.test(code("execFileSync('ss', ['-xpnH'])"))).toBe(true);
    expect(READS_PROC.test(code('// reads /proc/locks'))).toBe(false);
    expect(READS_PROC.test(code("import { x } from '../common/processes.js';"))).toBe(false);
  });

  it('lets each file that spells /proc do so only while it still does (no stale reason)', () => {
    const stale = Object.keys(SPELLS_PROC).filter((path) => !READS_PROC.test(code(readFileSync(join(ROOT, path), 'utf8'))));
    expect(stale).toEqual([]);
  });
});

describe('the platform recap asks', () => {
  it("is the system's own: nothing in the environment switches it (an agent could set that), NODE_ENV=test as under vitest included", () => {
    process.env.RECAP_PLATFORM = 'fake-macos';
    try {
      expect(platform().name).toBe(process.platform === 'darwin' ? 'macos' : process.platform === 'linux' ? 'linux' : 'unsupported');
    } finally {
      delete process.env.RECAP_PLATFORM;
    }
    expect(readFileSync(join(ROOT, 'src/platform/choose.ts'), 'utf8')).not.toMatch(/process\.env|readFileSync/);
  });
});
