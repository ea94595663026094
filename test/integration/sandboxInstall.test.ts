// `recap install <agent> --sandbox` through the real CLI, where it must refuse: an agent
// without a sandbox recap can configure, and a Claude Code whose own sandbox settings would
// let the agent's shell reach recap. Nothing is written in either case.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, trackedSandboxes } from '../helpers/daemon.js';

const { newBox } = trackedSandboxes(afterEach);

describe('recap install --sandbox', () => {
  it.each([
    ['gemini', "Gemini CLI's sandbox is a container that its hooks run inside too"],
    ['qwen', "Qwen Code's sandbox is a container that its hooks run inside too"],
    ['copilot', 'Copilot CLI has no OS sandbox recap can configure; leave out --sandbox'],
    ['opencode', 'opencode has no OS sandbox recap can configure; leave out --sandbox'],
  ])('is refused for %s, which has no sandbox recap can configure, and installs without --sandbox', async (agent, says) => {
    const box = newBox();
    const before = readdirSync(box.dir).sort();
    const result = await runCli(box, ['install', agent, '--sandbox']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(says);
    expect(readdirSync(box.dir).sort()).toEqual(before);
    // Without --sandbox the agent is installed as ever.
    const plain = await runCli(box, ['install', agent]);
    expect(plain.code, plain.stderr).toBe(0);
  });

  it("is refused for a Claude Code whose own settings let sandboxed commands reach any Unix socket, and recap's hooks are not written; with the setting removed it goes through", async () => {
    const box = newBox();
    const local = join(box.project, '.claude', 'settings.local.json');
    mkdirSync(dirname(local), { recursive: true });
    const text = `${JSON.stringify({ sandbox: { network: { allowAllUnixSockets: true } } })}\n`;
    writeFileSync(local, text);
    const result = await runCli(box, ['install', 'claude', '--sandbox', '--scope', 'project']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`sandbox.network.allowAllUnixSockets is true, so sandboxed commands reach recap's socket: remove it (${local})`);
    expect(result.stderr).toContain('(recap changed nothing)');
    expect(readFileSync(local, 'utf8')).toBe(text);
    expect(existsSync(join(box.project, '.claude', 'settings.json'))).toBe(false);
    // The way out the message names: with the setting removed, the same install goes through.
    writeFileSync(local, `${JSON.stringify({ sandbox: { network: {} } })}\n`);
    const again = await runCli(box, ['install', 'claude', '--sandbox', '--scope', 'project']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(local, 'utf8')).sandbox).toMatchObject({ enabled: true, network: {} });
    expect(existsSync(join(box.project, '.claude', 'settings.json'))).toBe(true);
  });

  it("puts a project's sandbox in settings.local.json, which names this machine's paths, and its hooks in the shared file", async () => {
    const box = newBox();
    const result = await runCli(box, ['install', 'claude', '--sandbox', '--scope', 'project']);
    expect(result.code, result.stderr).toBe(0);
    const shared = JSON.parse(readFileSync(join(box.project, '.claude', 'settings.json'), 'utf8'));
    const local = JSON.parse(readFileSync(join(box.project, '.claude', 'settings.local.json'), 'utf8'));
    expect(shared.sandbox).toBeUndefined();
    expect(local.sandbox.filesystem.denyRead).toEqual(expect.arrayContaining([box.data, join(box.project, '.recap')]));
    expect(local.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining([join(box.project, '.claude', 'settings.json')]));
    expect((await runCli(box, ['uninstall', 'claude', '--scope', 'project'])).code).toBe(0);
    expect(existsSync(join(box.project, '.claude', 'settings.local.json')) ? JSON.parse(readFileSync(join(box.project, '.claude', 'settings.local.json'), 'utf8')) : {}).toEqual(
      {},
    );
  });
});
