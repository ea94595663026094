// recap's sandbox in Claude Code's settings (`recap install claude --sandbox`): merged beside
// the user's own sandbox settings, refused over settings that would open it, and taken out
// again only where recap put it.
import { describe, expect, it } from 'vitest';
import {
  RECAP_SANDBOX,
  sandboxConflicts,
  sandboxEnabled,
  sandboxGaps,
  sandboxWarnings,
  withoutRecapSandbox,
  withRecapSandbox,
  type SandboxPaths,
} from '../../src/agents/claude/sandbox.js';
import type { Settings } from '../../src/agents/claude/settings.js';

const PATHS: SandboxPaths = {
  denyRead: ['/home/u/.local/share/recap', '/run/user/1000/recap'],
  denyWrite: ['/home/u/.local/share/recap', '/run/user/1000/recap', '/usr/lib/node_modules/recap'],
};

/** A user's own settings, with a sandbox of their own that recap's must sit beside. */
const userSettings = (): Settings =>
  ({
    model: 'opus',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/audit', timeout: 5 }] }] },
    sandbox: {
      autoAllowBashIfSandboxed: true,
      excludedCommands: ['docker'],
      network: { allowedDomains: ['registry.npmjs.org'] },
      filesystem: { allowWrite: ['~/.cache/pip'], denyRead: ['~/.ssh', '/run/user/1000/recap'] },
    },
  }) as Settings;

describe("recap's sandbox merged into Claude Code's settings", () => {
  it('turns the sandbox on, closed, beside everything of the user', () => {
    const { settings, added } = withRecapSandbox(userSettings(), PATHS);
    expect(settings).toEqual({
      ...userSettings(),
      sandbox: {
        ...RECAP_SANDBOX,
        autoAllowBashIfSandboxed: true,
        excludedCommands: ['docker'],
        network: { allowedDomains: ['registry.npmjs.org'] },
        filesystem: {
          allowWrite: ['~/.cache/pip'],
          // The user's entries first; recap's path the user already listed is not listed twice.
          denyRead: ['~/.ssh', '/run/user/1000/recap', '/home/u/.local/share/recap'],
          denyWrite: PATHS.denyWrite,
        },
      },
    });
    expect(added).toEqual({
      keys: ['enabled', 'failIfUnavailable', 'allowUnsandboxedCommands'],
      paths: { 'filesystem.denyRead': ['/home/u/.local/share/recap'], 'filesystem.denyWrite': PATHS.denyWrite },
    });
    expect(sandboxEnabled(settings)).toBe(true);
    expect(sandboxGaps(settings, PATHS)).toEqual([]);
  });

  it('takes out only what it added: the user had listed one of its paths, and set enabled themselves', () => {
    const own = userSettings() as Settings & { sandbox: Record<string, unknown> };
    own.sandbox.enabled = true;
    const { settings, added } = withRecapSandbox(own, PATHS);
    expect(added.keys).toEqual(['failIfUnavailable', 'allowUnsandboxedCommands']);
    expect(withoutRecapSandbox(settings, added)).toEqual(own);
  });

  it('leaves no empty sandbox behind in settings that had none', () => {
    const bare: Settings = { model: 'opus' } as Settings;
    const { settings, added } = withRecapSandbox(bare, PATHS);
    expect(withoutRecapSandbox(settings, added)).toEqual(bare);
  });

  it('keeps what the user changed or added since: a value they set to their own, a path of theirs', () => {
    const { settings, added } = withRecapSandbox(userSettings(), PATHS);
    const changed = structuredClone(settings) as Settings & { sandbox: { failIfUnavailable: boolean; filesystem: { denyWrite: string[] } } };
    changed.sandbox.filesystem.denyWrite.push('/etc/hosts');
    changed.sandbox.failIfUnavailable = false;
    const after = withoutRecapSandbox(changed, added) as { sandbox: Record<string, unknown> };
    expect(after.sandbox.filesystem).toMatchObject({ denyWrite: ['/etc/hosts'] });
    expect(after.sandbox.failIfUnavailable).toBe(false);
    expect(after.sandbox.enabled).toBeUndefined();
  });

  it('is the same when installed twice: the second time adds nothing and records the same', () => {
    const first = withRecapSandbox(userSettings(), PATHS);
    const again = withRecapSandbox(withoutRecapSandbox(first.settings, first.added), PATHS);
    expect(again).toEqual(first);
  });

  it('drops a path it no longer names when installed again (a moved package)', () => {
    const first = withRecapSandbox({} as Settings, PATHS);
    const moved = { ...PATHS, denyWrite: [...PATHS.denyRead, '/opt/recap'] };
    const again = withRecapSandbox(withoutRecapSandbox(first.settings, first.added), moved);
    expect((again.settings as { sandbox: { filesystem: { denyWrite: string[] } } }).sandbox.filesystem.denyWrite).toEqual(moved.denyWrite);
  });
});

describe("the user's own sandbox settings that would open recap's", () => {
  it.each([
    [{ enabled: false }, 'sandbox.enabled is false'],
    [{ failIfUnavailable: false }, 'failIfUnavailable is false'],
    [{ allowUnsandboxedCommands: true }, 'allowUnsandboxedCommands is true'],
    [{ network: { allowAllUnixSockets: true } }, "reach recap's socket"],
    [{ filesystem: { disabled: true } }, 'filesystem.disabled is true'],
  ])('refuses %j', (sandbox, says) => {
    const conflicts = sandboxConflicts({ sandbox } as Settings);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toContain(says);
    expect(conflicts[0]).toMatch(/: remove it$/);
  });

  it("refuses, on macOS's Seatbelt, network.allowUnixSockets naming recap's socket or a folder above it; takes other sockets", () => {
    const sockets = (allowUnixSockets: string[]) => sandboxConflicts({ sandbox: { network: { allowUnixSockets } } } as Settings, PATHS.denyRead);
    expect(sockets(['/run/user/1000/recap'])).toEqual([
      "sandbox.network.allowUnixSockets (/run/user/1000/recap) lets sandboxed commands on macOS reach recap's socket: remove them",
    ]);
    expect(sockets(['/var/run/docker.sock', '/run/user/1000/'])).toEqual([expect.stringContaining('allowUnixSockets (/run/user/1000/)')]);
    expect(sockets(['/var/run/docker.sock', '/run/user/1000/recap-other'])).toEqual([]);
    // With recap's paths unknown, nothing is refused on their account.
    expect(sandboxConflicts({ sandbox: { network: { allowUnixSockets: ['/run/user/1000/recap'] } } } as Settings)).toEqual([]);
  });

  it('takes a sandbox that only adds to recap (the user settings above) and none at all', () => {
    expect(sandboxConflicts(userSettings())).toEqual([]);
    expect(sandboxConflicts({} as Settings)).toEqual([]);
  });

  it('warns of commands the user lets out of the sandbox', () => {
    expect(sandboxWarnings(userSettings())).toEqual([expect.stringMatching(/^sandbox\.excludedCommands \(docker\) run outside/)]);
  });

  it('says what is missing when the sandbox was weakened after the install', () => {
    const { settings } = withRecapSandbox({} as Settings, PATHS);
    const weakened = structuredClone(settings) as { sandbox: Record<string, unknown> & { filesystem: { denyRead: string[] } } };
    weakened.sandbox.allowUnsandboxedCommands = true;
    weakened.sandbox.filesystem.denyRead = [];
    const gaps = sandboxGaps(weakened as Settings, PATHS);
    expect(gaps).toContain('sandbox.allowUnsandboxedCommands is not false');
    expect(gaps).toContain(`sandbox.filesystem.denyRead lacks ${PATHS.denyRead.join(', ')}`);
    expect(sandboxGaps({} as Settings, PATHS)).toEqual(['no "sandbox" at all']);
  });
});
