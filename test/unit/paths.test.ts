// Where recap keeps its files: an XDG variable that is set but empty (or relative) is
// treated as unset, as the XDG spec says, so nothing lands under the current folder. Where a
// path really leads (links followed), and recap's package read-only to the agent.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir, socketPath, userConfigPath, xdgConfigHome } from '../../src/common/paths.js';
import { systemdUserDir } from '../../src/client/installSystemd.js';
import { isRecapFolder, protectionFor, readOnlyPaths } from '../../src/agents/recapPaths.js';
import { linkFollower } from '../../src/common/linkFollower.js';
import { PathUnknown, protectionRefusal } from '../../src/events/protection.js';
import type { ToolCall } from '../../src/events/toolCall.js';

/** A home the links lead into: where recap's user config would be. */
const HOME_FOR_LINKS = '/home/linked';
import { PACKAGE_ROOT } from '../../src/common/bins.js';
import { opencodeConfigDir } from '../../src/agents/opencode/facts.js';

const HOME = '/home/someone';
const uid = process.getuid!();

describe('XDG variables', () => {
  it.each([
    ['empty', ''],
    ['relative', 'config'],
    ['a dot', '.'],
  ])('given an XDG_* set but %s, when paths are derived, then each is the default', (_what, value) => {
    const env = { HOME, XDG_CONFIG_HOME: value, XDG_DATA_HOME: value, XDG_RUNTIME_DIR: value };
    expect(xdgConfigHome(env)).toBe(join(HOME, '.config'));
    expect(systemdUserDir(env)).toBe(join(HOME, '.config', 'systemd', 'user'));
    expect(userConfigPath(env)).toBe(join(homedir(), '.config', 'recap', 'config.conf'));
    expect(dataDir(env)).toBe(join(homedir(), '.local', 'share', 'recap'));
    expect(socketPath(env)).toBe(`/tmp/recap-${uid}/recapd.sock`);
    expect(opencodeConfigDir(env, HOME)).toBe(join(HOME, '.config', 'opencode'));
    expect(readOnlyPaths(env)).toContain(join(HOME, '.config', 'systemd', 'user', 'recap.service'));
  });

  it('given absolute XDG_* folders, when paths are derived, then each is under its folder', () => {
    const env = { HOME, XDG_CONFIG_HOME: '/x/config', XDG_DATA_HOME: '/x/data', XDG_RUNTIME_DIR: '/x/run' };
    expect(systemdUserDir(env)).toBe('/x/config/systemd/user');
    expect(userConfigPath(env)).toBe('/x/config/recap/config.conf');
    expect(dataDir(env)).toBe('/x/data/recap');
    expect(socketPath(env)).toBe('/x/run/recap/recapd.sock');
    expect(opencodeConfigDir(env, HOME)).toBe('/x/config/opencode');
  });
});

describe('macOS paths (platform darwin, run on any system)', () => {
  const MAC_HOME = '/Users/ada';
  const TMPDIR = '/var/folders/7x/k2j5d1xs0hb8c9t1zq3y8w4m0000gn/T/';
  const support = join(MAC_HOME, 'Library', 'Application Support', 'recap');

  it('given no XDG variables, then data and config are in ~/Library/Application Support/recap, the socket in a folder of its own under $TMPDIR', () => {
    const env = { HOME: MAC_HOME, TMPDIR };
    expect(dataDir(env, 'darwin')).toBe(support);
    expect(userConfigPath(env, 'darwin')).toBe(join(support, 'config.conf'));
    expect(socketPath(env, 'darwin')).toBe(`/var/folders/7x/k2j5d1xs0hb8c9t1zq3y8w4m0000gn/T/recap-${uid}/recapd.sock`);
    // Folders recap takes for its own (made 0700, protected whole): the socket's and the data's.
    expect(isRecapFolder(dirname(socketPath(env, 'darwin')))).toBe(true);
    expect(isRecapFolder(support)).toBe(true);
  });

  it('given XDG variables the user set, then they win on macOS too', () => {
    const env = { HOME: MAC_HOME, TMPDIR, XDG_CONFIG_HOME: '/x/config', XDG_DATA_HOME: '/x/data', XDG_RUNTIME_DIR: '/x/run' };
    expect(dataDir(env, 'darwin')).toBe('/x/data/recap');
    expect(userConfigPath(env, 'darwin')).toBe('/x/config/recap/config.conf');
    expect(socketPath(env, 'darwin')).toBe('/x/run/recap/recapd.sock');
  });

  it('given no usable $TMPDIR (unset, or relative), then the socket is under /tmp as on Linux', () => {
    for (const tmp of [undefined, 'T']) expect(socketPath({ HOME: MAC_HOME, TMPDIR: tmp }, 'darwin')).toBe(`/tmp/recap-${uid}/recapd.sock`);
  });

  it('given RECAP_* variables, then they win over every platform default', () => {
    const env = { HOME: MAC_HOME, TMPDIR, RECAP_SOCKET: '/s.sock', RECAP_DATA_DIR: '/d', RECAP_CONFIG: '/c.conf' };
    expect([socketPath(env, 'darwin'), dataDir(env, 'darwin'), userConfigPath(env, 'darwin')]).toEqual(['/s.sock', '/d', '/c.conf']);
  });

  it('given the same variables on Linux, then nothing changes there: $TMPDIR and ~/Library play no part', () => {
    const env = { HOME: MAC_HOME, TMPDIR };
    expect(socketPath(env, 'linux')).toBe(`/tmp/recap-${uid}/recapd.sock`);
    expect(dataDir(env, 'linux')).toBe(join(homedir(), '.local', 'share', 'recap'));
    expect(userConfigPath(env, 'linux')).toBe(join(homedir(), '.config', 'recap', 'config.conf'));
  });

  it("the launchd agent's plist is one the agent may read but not change", () => {
    expect(readOnlyPaths({ HOME: MAC_HOME })).toContain(join(MAC_HOME, 'Library', 'LaunchAgents', 'recap.daemon.plist'));
  });
});

describe('where a path really leads (linkFollower, issue 25 item 6)', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'recap-links-')));
    mkdirSync(join(dir, 'real', 'sub'), { recursive: true });
    symlinkSync('/', join(dir, 'root'));
    symlinkSync(join(dir, 'real'), join(dir, 'folder'));
    symlinkSync('real/sub', join(dir, 'relative'));
    symlinkSync(join(dir, 'real', 'not-yet.conf'), join(dir, 'dangling'));
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a link to / followed by a path that exists', 'root/etc/hostname', '/etc/hostname'],
    ['a link to / followed by a path that does not exist yet', 'root/home/u/.config/recap/config.conf', '/home/u/.config/recap/config.conf'],
    ['a link to a folder, then a new file in it', 'folder/new.txt', 'real/new.txt'],
    ['a relative link', 'relative/x', 'real/sub/x'],
    ['.. taken after the link, as the kernel does', 'relative/../y', 'real/y'],
    ['a dangling link, where its target would be written', 'dangling', 'real/not-yet.conf'],
    ['a path with no link', 'real/sub/z', 'real/sub/z'],
  ])('%s', (_what, path, leads) => {
    expect(linkFollower()(`${dir}/${path}`)).toBe(leads.startsWith('/') ? leads : `${dir}/${leads}`);
  });

  it('a loop of links cannot be followed to its end: the follower says so instead of taking the path as written', () => {
    expect(() => linkFollower()(`${dir}/loop-a/x`)).toThrow(PathUnknown);
  });

  it('a call that spends the links on a loop first is refused, not judged as spelled for the paths after it', () => {
    symlinkSync(HOME_FOR_LINKS, join(dir, 'h'));
    const state = { paths: [`${HOME_FOR_LINKS}/.config/recap`], home: HOME_FOR_LINKS, links: linkFollower };
    const call = { kind: 'mcp', name: 'mcp__fs__read_file', paths: [], input: { a: 'loop-a/x', b: 'h/.config/recap/config.conf' } } as unknown as ToolCall;
    expect(protectionRefusal(call, dir, state, new Set())).toMatch(/^mcp__fs__read_file names a path recap cannot follow to its end \(more than 40 links\)/);
  });

  it('past the names it looks up one by one, a follower reads them from the folder listing, and still sees the link', () => {
    const follow = linkFollower();
    for (let i = 0; i < 200; i += 1) expect(follow(`${dir}/junk-${i}`)).toBe(`${dir}/junk-${i}`);
    expect(follow(`${dir}/root/etc/hostname`)).toBe('/etc/hostname');
    expect(follow(`${dir}/dangling`)).toBe(`${dir}/real/not-yet.conf`);
  });

  it("/proc is not followed: its links are the daemon's, not the agent's", () => {
    expect(linkFollower()('/proc/self/cwd/x')).toBe('/proc/self/cwd/x');
  });

  it("a shell call's folder and a Glob's pattern take `..` after their links, as the kernel does", () => {
    const recapDir = join(dir, 'private', 'recap');
    mkdirSync(join(recapDir, 'sub'), { recursive: true });
    symlinkSync(join(recapDir, 'sub'), join(dir, 'into-recap'));
    const state = { paths: [recapDir], home: HOME_FOR_LINKS, links: linkFollower };
    // `into-recap/..` is recap's folder to the kernel; lexically it would be `dir` itself.
    const shell = { kind: 'shell', name: 'Bash', command: 'cat config.conf', dir: `${dir}/into-recap/..`, paths: [] } as unknown as ToolCall;
    expect(protectionRefusal(shell, dir, state, new Set())).toMatch(/^Bash in .*into-recap\/\.\. runs inside recap's own files/);
    const glob = { kind: 'glob', name: 'Glob', glob: 'into-recap/../*.conf', paths: [dir], input: {} } as unknown as ToolCall;
    expect(protectionRefusal(glob, dir, state, new Set())).toMatch(/^Glob on into-recap\/\.\.\/\*\.conf touches recap's own files/);
    // The same calls without the link's `..` stay where they are: allowed.
    expect(protectionRefusal({ ...shell, dir } as ToolCall, dir, state, new Set())).toBeUndefined();
    expect(protectionRefusal({ ...glob, glob: '*.conf' } as ToolCall, dir, state, new Set())).toBeUndefined();
  });

  it('a follower sees a link made after an earlier follower looked (nothing kept across calls)', () => {
    const later = join(dir, 'later');
    expect(linkFollower()(`${later}/x`)).toBe(`${later}/x`);
    symlinkSync('/', later);
    expect(linkFollower()(`${later}/x`)).toBe('/x');
  });
});

describe("recap's package is read-only to the agent (issue 25, item 3)", () => {
  const HOME_ = '/home/someone';

  it('given the running package, then its whole folder, its package.json and node_modules are read-only', () => {
    const paths = readOnlyPaths({ HOME: HOME_ });
    expect(paths).toContain(PACKAGE_ROOT);
    expect(paths).toContain(join(PACKAGE_ROOT, 'node_modules'));
    // node_modules shared through a link: where it leads is read-only too.
    expect(paths).toContain(realpathSync(join(PACKAGE_ROOT, 'node_modules')));
  });

  it('given a project outside the package, then the whole package stays read-only for it', () => {
    const state = protectionFor({ paths: [], readOnly: readOnlyPaths({ HOME: HOME_ }), home: HOME_ }, '/tmp/some-project');
    expect(state.readOnly).toContain(PACKAGE_ROOT);
  });

  it('given a project inside the clone recap runs from, then only its running code (bin, dist, claude-plugin, node_modules) is read-only', () => {
    const state = protectionFor({ paths: [], readOnly: readOnlyPaths({ HOME: HOME_ }), home: HOME_ }, PACKAGE_ROOT);
    expect(state.readOnly).not.toContain(PACKAGE_ROOT);
    expect(state.readOnly).toEqual(expect.arrayContaining(['bin', 'dist', 'claude-plugin', 'node_modules'].map((d) => join(PACKAGE_ROOT, d))));
  });

  it('then protectionFor hands the protection rules a link follower', () => {
    expect(protectionFor({ paths: [], home: HOME_ }, undefined).links).toBe(linkFollower);
  });
});
