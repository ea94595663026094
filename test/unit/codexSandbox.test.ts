// recap's sandbox_mode in Codex's config.toml (`recap install codex --sandbox`): one line
// added among the top-level keys, every other byte kept, refused over settings that open the
// sandbox, and taken out again only when recap added it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexSandboxChecks, installCodexSandbox, uninstallCodexSandbox } from '../../src/agents/codex/sandbox.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'recap-codex-sandbox-'));
  env = {
    HOME: dir,
    CODEX_HOME: join(dir, '.codex'),
    RECAP_DATA_DIR: join(dir, 'data'),
    RECAP_SOCKET: join(dir, 'run', 'recap', 'recapd.sock'),
    RECAP_CONFIG: join(dir, 'c.conf'),
  };
  mkdirSync(join(dir, '.codex'));
  file = join(dir, '.codex', 'config.toml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const USER = '# my settings\nmodel = "gpt-5.5" # the good one\n\n[features]\nplugins = false\n';

describe("recap's sandbox_mode in Codex's config.toml", () => {
  it('is added after the last top-level key and taken out again, every other byte kept', () => {
    writeFileSync(file, USER);
    expect(installCodexSandbox(env)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('# my settings\nmodel = "gpt-5.5" # the good one\nsandbox_mode = "workspace-write"\n\n[features]\nplugins = false\n');
    expect(codexSandboxChecks(env)).toEqual([expect.objectContaining({ name: 'codex sandbox', ok: true })]);
    expect(uninstallCodexSandbox(env)).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe(USER);
    expect(codexSandboxChecks(env)).toEqual([]);
  });

  it('goes into an empty or missing file, and a file without a final newline', () => {
    expect(installCodexSandbox(env)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('sandbox_mode = "workspace-write"\n');
    uninstallCodexSandbox(env);
    writeFileSync(file, 'model = "gpt-5.5"');
    installCodexSandbox(env);
    expect(readFileSync(file, 'utf8')).toBe('model = "gpt-5.5"\nsandbox_mode = "workspace-write"\n');
  });

  it("leaves the user's own confining mode alone, and does not take it out on uninstall", () => {
    writeFileSync(file, 'sandbox_mode = "read-only"\n');
    expect(installCodexSandbox(env)).toBe(false);
    expect(uninstallCodexSandbox(env)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('sandbox_mode = "read-only"\n');
  });

  it('keeps a mode the user changed after the install', () => {
    writeFileSync(file, USER);
    installCodexSandbox(env);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"workspace-write"', '"read-only"'));
    expect(uninstallCodexSandbox(env)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toContain('sandbox_mode = "read-only"');
  });

  it.each([
    ['sandbox_mode = "danger-full-access"\n', 'sandbox_mode is "danger-full-access"', ''],
    ['[sandbox_workspace_write]\nnetwork_access = true\n', "network_access = true lets Codex's shell reach recap's socket", '[sandbox_workspace_write]\n'],
    [
      '[sandbox_workspace_write]\nwritable_roots = ["/elsewhere", "DATA"]\n',
      "writable_roots (DATA) holds recap's files",
      '[sandbox_workspace_write]\nwritable_roots = ["/elsewhere"]\n',
    ],
  ])('refuses over %j, and changes nothing; with the setting taken out, it goes in', (text, says, fixed) => {
    const written = text.replace('DATA', join(dir, 'data'));
    writeFileSync(file, written);
    expect(() => installCodexSandbox(env)).toThrow(says.replace('DATA', join(dir, 'data')));
    expect(readFileSync(file, 'utf8')).toBe(written);
    writeFileSync(file, fixed);
    expect(installCodexSandbox(env)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('sandbox_mode = "workspace-write"');
  });

  it('doctor says when the sandbox recap turned on was opened afterwards', () => {
    writeFileSync(file, USER);
    installCodexSandbox(env);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n[sandbox_workspace_write]\nnetwork_access = true\n`);
    expect(codexSandboxChecks(env)).toEqual([expect.objectContaining({ ok: false, fix: 'recap install codex --sandbox' })]);
  });
});
