// The daemon's view of recap's files: the launcher's text, what the agent may only read,
// and the folders where a shadow would sit.
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/common/bins.js';
import { launcherPath } from '../../src/common/paths.js';
import { launcherScript, projectReadOnlyPaths, readOnlyPaths, recapPaths, sandboxPaths, shadowDirs } from '../../src/agents/recapPaths.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ENV = { HOME: '/home/ann', XDG_CONFIG_HOME: '/home/ann/.config', RECAP_DATA_DIR: '/home/ann/.local/share/recap', PATH: '/home/ann/.local/bin:/usr/bin:relative/bin:/bin/' };

describe('the launcher', () => {
  it('runs this node on the real recap, both by absolute path, quoted, with every argument passed on', () => {
    const text = launcherScript('/opt/node 20/bin/node', "/home/o'brien/recap/bin/recap.js");
    expect(text.split('\n')[0]).toBe('#!/bin/sh');
    expect(text).toContain(`exec '/opt/node 20/bin/node' '/home/o'\\''brien/recap/bin/recap.js' "$@"\n`);
  });

  it('lives in the data folder and is the only name of recap the gate accepts', () => {
    expect(launcherPath(ENV)).toBe('/home/ann/.local/share/recap/bin/recap');
    expect([...recapPaths(ENV)]).toEqual([launcherPath(ENV)]);
  });
});

describe('read-only paths', () => {
  it('are the user settings (~/.claude and CLAUDE_CONFIG_DIR), the whole package and its node_modules, the units and node', () => {
    const paths = readOnlyPaths({ ...ENV, CLAUDE_CONFIG_DIR: '/home/ann/claude-cfg' });
    for (const path of [
      '/home/ann/.claude/settings.json',
      '/home/ann/.claude/settings.local.json',
      '/home/ann/claude-cfg/settings.json',
      PACKAGE_ROOT,
      `${PACKAGE_ROOT}/node_modules`,
      '/home/ann/.config/systemd/user/recap.service',
      '/home/ann/.config/systemd/user/recap.socket',
      process.execPath,
    ]) {
      expect(paths).toContain(path);
    }
  });

  // Every agent adds its own project settings; these are Claude Code's.
  it("a project's include its Claude Code settings, shared and local", () => {
    expect(projectReadOnlyPaths('/src/app')).toEqual(expect.arrayContaining(['/src/app/.claude/settings.json', '/src/app/.claude/settings.local.json']));
  });
});

describe("the paths an agent's OS sandbox is given", () => {
  it("deny recap's own files (and a project's .recap) to read, and its setup to write, each list once", () => {
    const env = { ...ENV, RECAP_SOCKET: '/run/user/1000/recap/recapd.sock', RECAP_CONFIG: '/home/ann/.config/recap/config.conf' };
    const { secret, readOnly } = sandboxPaths(env, '/src/app');
    expect(secret).toEqual(
      expect.arrayContaining([
        '/home/ann/.local/share/recap',
        '/run/user/1000/recap/recapd.sock',
        '/run/user/1000/recap',
        '/run/user/1000/recap/recapd.http.sock',
        '/home/ann/.config/recap/config.conf',
        '/home/ann/.config/recap',
        '/src/app/.recap',
      ]),
    );
    expect(readOnly).toEqual(expect.arrayContaining(['/home/ann/.claude/settings.json', '/src/app/.claude/settings.json', process.execPath]));
    expect(readOnly.filter((p) => secret.includes(p))).toEqual([]);
    expect(new Set(readOnly).size).toBe(readOnly.length);
  });

  // The tests run from a clone of recap: there only the code that runs is denied, not the work.
  it.runIf(existsSync(join(PACKAGE_ROOT, '.git')))('in a clone of recap, deny the running code, not the sources', () => {
    const { readOnly } = sandboxPaths(ENV);
    expect(readOnly).not.toContain(PACKAGE_ROOT);
    expect(readOnly).toEqual(expect.arrayContaining([join(PACKAGE_ROOT, 'dist'), join(PACKAGE_ROOT, 'bin'), join(PACKAGE_ROOT, 'node_modules')]));
  });
});

describe('shadow folders', () => {
  it('are the absolute folders on PATH, without a trailing slash, and ~/.local/bin and ~/bin', () => {
    expect(shadowDirs(ENV)).toEqual(['/home/ann/.local/bin', '/usr/bin', '/bin', '/home/ann/bin']);
  });
});
