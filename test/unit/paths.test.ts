// Where recap keeps its files: an XDG variable that is set but empty (or relative) is
// treated as unset, as the XDG spec says, so nothing lands under the current folder.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDir, socketPath, userConfigPath, xdgConfigHome } from '../../src/common/paths.js';
import { systemdUserDir } from '../../src/client/installSystemd.js';
import { readOnlyPaths } from '../../src/daemon/recapPaths.js';
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
