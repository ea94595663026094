// recap's MCP server in each agent's config: written in the agent's format with this Node and
// this recap, the user's own servers and keys kept, written once, removed alone, and a
// `recap` server that runs something else flagged by the doctor.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/agents/adapters.js';
import { addRecapServer, recapServerCheck, removeRecapServer, type McpConfig } from '../../src/agents/kit/mcpServers.js';
import { RECAP_BIN } from '../../src/common/bins.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup() {
  const home = mkdtempSync(join(tmpdir(), 'recap-mcp-'));
  dirs.push(home);
  const project = join(home, 'project');
  mkdirSync(project);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  return { home, project, env, options: { scope: 'user' as const, project, env } };
}

const COMMAND = [process.execPath, RECAP_BIN, 'mcp'];

/** recap's entry as each agent takes it, and where its user config is. */
const EXPECTED: Record<string, { file: string; key: string; entry: unknown }> = {
  claude: { file: '.claude.json', key: 'mcpServers', entry: { type: 'stdio', command: process.execPath, args: [RECAP_BIN, 'mcp'] } },
  gemini: { file: '.gemini/settings.json', key: 'mcpServers', entry: { command: process.execPath, args: [RECAP_BIN, 'mcp'] } },
  qwen: { file: '.qwen/settings.json', key: 'mcpServers', entry: { command: process.execPath, args: [RECAP_BIN, 'mcp'] } },
  copilot: { file: '.copilot/mcp-config.json', key: 'mcpServers', entry: { type: 'local', tools: ['*'], command: process.execPath, args: [RECAP_BIN, 'mcp'] } },
  opencode: { file: '.config/opencode/opencode.json', key: 'mcp', entry: { type: 'local', command: COMMAND, enabled: true } },
};

describe.each(Object.entries(EXPECTED))("recap's MCP server for %s", (agent, expected) => {
  const config = ADAPTERS[agent as keyof typeof ADAPTERS].mcp as McpConfig;

  it('is written beside the user’s own servers and keys, once', () => {
    const { home, options } = setup();
    const file = join(home, expected.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ theme: 'dark', [expected.key]: { mine: { command: 'mine' } } }));
    expect(addRecapServer(config, options)).toEqual({ file, changed: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ theme: 'dark', [expected.key]: { mine: { command: 'mine' }, recap: expected.entry } });
    expect(addRecapServer(config, options).changed).toBe(false);
  });

  it('is removed alone, and the doctor then says how to add it', () => {
    const { home, project, env, options } = setup();
    const file = join(home, expected.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ [expected.key]: { mine: { command: 'mine' } } }));
    addRecapServer(config, options);
    expect(recapServerCheck(config, agent, agent, project, env)).toMatchObject({ ok: true, detail: expect.stringContaining('is registered') });
    expect(removeRecapServer(config, options)).toEqual([file]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ [expected.key]: { mine: { command: 'mine' } } });
    expect(recapServerCheck(config, agent, agent, project, env)).toMatchObject({ ok: true, detail: expect.stringContaining(`recap install ${agent} --mcp`) });
  });

  it('a server named recap that runs something else is flagged, and left in place by uninstall', () => {
    const { home, project, env, options } = setup();
    const file = join(home, expected.file);
    mkdirSync(dirname(file), { recursive: true });
    const fake = config.entry(['/bin/sh', '-c', 'evil']);
    writeFileSync(file, JSON.stringify({ [expected.key]: { recap: fake } }));
    expect(recapServerCheck(config, agent, agent, project, env)).toMatchObject({ ok: false, detail: expect.stringContaining('not recap') });
    expect(removeRecapServer(config, options)).toEqual([]);
  });
});

describe("recap's MCP server for codex (config.toml)", () => {
  const config = ADAPTERS.codex.mcp!;
  const USER_TOML = [
    '# my settings',
    'model = "gpt-5.5"',
    '',
    '[mcp_servers.mine]',
    'command = "mine" # my own server',
    'args = ["--fast"]',
    '',
    '[projects."/p"]',
    'trust_level = "trusted"',
    '',
  ].join('\n');
  const RECAP_TABLE = `[mcp_servers.recap]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(RECAP_BIN)}, "mcp"]\nenv_vars = ["XDG_RUNTIME_DIR", "RECAP_SOCKET"]\n`;

  function codexSetup(text?: string) {
    const base = setup();
    const file = join(base.home, '.codex', 'config.toml');
    if (text !== undefined) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    return { ...base, file };
  }

  it('is appended as its own table, every byte of the user’s file kept, once', () => {
    const { file, options } = codexSetup(USER_TOML);
    expect(addRecapServer(config, options)).toEqual({ file, changed: true });
    expect(readFileSync(file, 'utf8')).toBe(`${USER_TOML}\n${RECAP_TABLE}`);
    expect(addRecapServer(config, options).changed).toBe(false);
  });

  it('is written into a new config.toml, and into the project’s .codex/config.toml with --scope project', () => {
    const { file, project, env, options } = codexSetup();
    addRecapServer(config, options);
    expect(readFileSync(file, 'utf8')).toBe(RECAP_TABLE);
    addRecapServer(config, { scope: 'project', project, env });
    expect(readFileSync(join(project, '.codex', 'config.toml'), 'utf8')).toBe(RECAP_TABLE);
  });

  it('is removed alone, the file as it was, and the doctor then says how to add it', () => {
    const { file, project, env, options } = codexSetup(USER_TOML);
    addRecapServer(config, options);
    expect(recapServerCheck(config, 'codex', 'Codex CLI', project, env)).toMatchObject({ ok: true, detail: expect.stringContaining('is registered') });
    expect(removeRecapServer(config, options)).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe(USER_TOML);
    expect(recapServerCheck(config, 'codex', 'Codex CLI', project, env)).toMatchObject({ ok: true, detail: expect.stringContaining('recap install codex --mcp') });
  });

  it('a server named recap that runs something else is flagged, and left in place by uninstall', () => {
    const text = `${USER_TOML}[mcp_servers.recap]\ncommand = "/bin/sh"\nargs = ["-c", "evil"]\n`;
    const { file, project, env, options } = codexSetup(text);
    expect(recapServerCheck(config, 'codex', 'Codex CLI', project, env)).toMatchObject({ ok: false, detail: expect.stringContaining('not recap') });
    expect(removeRecapServer(config, options)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a recap server written as dotted keys or an inline table, and changes nothing', () => {
    for (const text of ['mcp_servers.recap.command = "/bin/sh"\n', '[mcp_servers]\nrecap = { command = "/bin/sh" }\n', 'mcp_servers = { }\n']) {
      const { file, options } = codexSetup(text);
      expect(() => addRecapServer(config, options)).toThrow(/\[mcp_servers\.recap\] table/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('says what is wrong with a config.toml it cannot read, and writes nothing', () => {
    const { file, project, env, options } = codexSetup('model = \n');
    expect(() => addRecapServer(config, options)).toThrow(/cannot be read as TOML.*fix it or move it aside/);
    expect(recapServerCheck(config, 'codex', 'Codex CLI', project, env)).toMatchObject({ ok: false, detail: expect.stringContaining('cannot be read as TOML') });
    expect(readFileSync(file, 'utf8')).toBe('model = \n');
  });
});
