// opencode behind recap's seam: what recap's plugin sends from opencode's real hooks
// (test/fixtures/agents/opencode) read into recap's calls, every tool in recap's terms, the
// answers the plugin acts on, the protection of opencode's config and plugin folders, and
// the plugin file: rendered, installed, refused over a file not recap's, removed, and judged
// by `recap doctor` (missing, moved, failing to load, switched off by OPENCODE_PURE).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencodeDoctor } from '../../src/agents/opencode/doctor.js';
import { opencodeFacts, opencodeToolCall, pluginsOff } from '../../src/agents/opencode/facts.js';
import { parseOpencodeHook } from '../../src/agents/opencode/hook.js';
import { installPlugin, pluginFile, pluginSettings, renderPlugin, uninstallPlugin } from '../../src/agents/opencode/install.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const FOLDER = join(FIXTURES, 'opencode');
const fixture = (name: string) => JSON.parse(readFileSync(join(FOLDER, `${name}.json`), 'utf8')) as Record<string, unknown>;
const PROJECT = '/tmp/FIXTURE/project';

describe("the payloads recap's plugin sends from opencode's real hooks", () => {
  it('are all covered here', () => {
    expect(readdirSync(FOLDER).sort()).toEqual(
      ['chat_message', 'chat_message-subagent', 'system_transform', ...['bash', 'edit', 'glob', 'grep', 'read', 'task', 'write'].map((t) => `tool_execute_before-${t}`)]
        .map((n) => `${n}.json`)
        .sort(),
    );
  });

  it("read the user's prompt, and pass over a subagent's and one of no words", () => {
    const user = fixture('chat_message');
    expect(parseOpencodeHook(user)).toEqual({ ok: true, call: { kind: 'prompt', text: user.prompt }, caller: { cwd: PROJECT, session: user.session_id, agent: 'main' } });
    expect(parseOpencodeHook(fixture('chat_message-subagent'))).toEqual({ ok: true, call: undefined, event: 'chat_message' });
    expect(parseOpencodeHook({ ...user, prompt: ' \n' })).toEqual({ ok: true, call: undefined, event: 'chat_message' });
  });

  it('read each tool call, a memory request, and attribute a subagent to the session that started it', () => {
    const bash = fixture('tool_execute_before-bash');
    expect(parseOpencodeHook(bash)).toMatchObject({ ok: true, call: { kind: 'tool', call: { name: 'bash', kind: 'shell', command: 'ls' } }, caller: { session: bash.session_id } });
    expect(parseOpencodeHook({ ...bash, agent_id: 'ses_child' })).toMatchObject({ caller: { session: bash.session_id, agent: 'ses_child' } });
    for (const [name, kind] of [
      ['read', 'read'],
      ['write', 'write'],
      ['edit', 'edit'],
      ['glob', 'search'],
      ['grep', 'search'],
      ['task', 'other'],
    ] as const) {
      expect(parseOpencodeHook(fixture(`tool_execute_before-${name}`)), name).toMatchObject({ ok: true, call: { kind: 'tool', call: { name, kind } } });
    }
    expect(parseOpencodeHook(fixture('system_transform'))).toMatchObject({ ok: true, call: { kind: 'sessionStart' } });
  });

  it('judge a tool call of an unexpected shape as one, and ignore events recap does not know', () => {
    const broken = parseOpencodeHook({ ...fixture('tool_execute_before-bash'), tool_name: 42 });
    expect(broken).toMatchObject({ ok: false, event: 'tool_execute_before', toolCall: true });
    expect(parseOpencodeHook({ hook_event_name: 'session_idle', cwd: PROJECT })).toEqual({ ok: true, call: undefined, event: 'session_idle' });
  });
});

describe("opencode's tools in recap's terms", () => {
  it('bash with its workdir; a bash without a command line is an unknown tool', () => {
    expect(opencodeToolCall('bash', { command: 'make', workdir: 'sub', description: 'x' })).toMatchObject({ kind: 'shell', command: 'make', dir: 'sub', paths: [] });
    expect(opencodeToolCall('bash', { cmd: 'make' })).toMatchObject({ kind: 'other' });
  });

  it('file tools by filePath or path, searches with their globs, a patch by the files its text names', () => {
    expect(opencodeToolCall('read', { filePath: '/p/a.ts', offset: 1 })).toMatchObject({ kind: 'read', paths: ['/p/a.ts'] });
    expect(opencodeToolCall('write', { path: 'b.ts', content: 'x' })).toMatchObject({ kind: 'write', paths: ['b.ts'] });
    expect(opencodeToolCall('edit', { filePath: '/p/c.ts', oldString: 'a', newString: 'b' })).toMatchObject({ kind: 'edit', paths: ['/p/c.ts'] });
    expect(opencodeToolCall('glob', { pattern: '**/*.ts', path: 'src' })).toMatchObject({ kind: 'search', paths: ['src'], glob: '**/*.ts' });
    expect(opencodeToolCall('grep', { pattern: 'x', include: '*.md' })).toMatchObject({ kind: 'search', paths: [], glob: '*.md' });
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: /p/b.txt\n*** Move to: ~/.config/opencode/plugins/x.js\n*** End Patch';
    expect(opencodeToolCall('apply_patch', { patchText: patch })).toMatchObject({ kind: 'patch', paths: ['a.txt', '/p/b.txt', '~/.config/opencode/plugins/x.js'] });
  });

  it('questions, the web, and anything else (task, skill, MCP and custom tools) as unknown tools', () => {
    expect(opencodeToolCall('question', { questions: [{ question: '[PLUGIN-LOCK] go on?', header: 'h', options: [] }] })).toMatchObject({
      kind: 'question',
      questions: ['[PLUGIN-LOCK] go on?'],
    });
    expect(opencodeToolCall('webfetch', { url: 'https://example.com' })).toMatchObject({ kind: 'web' });
    for (const name of ['task', 'todowrite', 'skill', 'github_create_issue', 'my_custom_tool']) expect(opencodeToolCall(name, {}).kind, name).toBe('other');
  });
});

describe('the answers the plugin acts on', () => {
  it('a deny it throws, a context it adds, a notice it logs', () => {
    expect(JSON.parse(opencodeFacts.deny('why').stdout)).toEqual({ deny: 'why' });
    expect(JSON.parse(opencodeFacts.context('sessionStart', 'memory').stdout)).toEqual({ context: 'memory' });
    expect(JSON.parse(opencodeFacts.notice('note').stdout)).toEqual({ systemMessage: 'note' });
    expect(JSON.parse(opencodeFacts.withNotice!(opencodeFacts.deny('why'), 'note').stdout)).toEqual({ deny: 'why', systemMessage: 'note' });
  });

  it('OPENCODE_PURE as opencode reads it', () => {
    for (const [value, off] of [
      ['1', true],
      ['TRUE', true],
      ['yes', false],
      ['0', false],
      [undefined, false],
    ] as const) {
      expect(pluginsOff({ OPENCODE_PURE: value }), String(value)).toBe(off);
    }
  });
});

describe("opencode's config and plugin folders are the user's to change, not the agent's", () => {
  const HOME = '/home/u';
  const DATA = `${HOME}/.local/share/recap`;
  const env = { XDG_CONFIG_HOME: '/cfg', OPENCODE_CONFIG_DIR: '/team/opencode', OPENCODE_CONFIG: '/team/oc.json' };
  const STATE: ProtectedState = {
    paths: [DATA],
    readOnly: [...opencodeFacts.settingsFiles(env, HOME), ...opencodeFacts.projectSettingsFiles(PROJECT)],
    home: HOME,
    settingsNames: opencodeFacts.settingsNames,
    shellVariables: opencodeFacts.shellVariables,
  };
  const refusal = (tool: string, input: unknown) => protectionRefusal(opencodeToolCall(tool, input), PROJECT, STATE, new Set([`${DATA}/bin/recap`]));

  it('names the global folder, ~/.opencode, OPENCODE_CONFIG_DIR and OPENCODE_CONFIG, and the project .opencode and opencode.json', () => {
    expect(opencodeFacts.settingsFiles(env, HOME)).toEqual([
      '/cfg/opencode',
      `${HOME}/.config/opencode`,
      `${HOME}/.opencode`,
      '/team/opencode',
      '/team/oc.json',
      `${HOME}/.cache/opencode`,
    ]);
    expect(opencodeFacts.projectSettingsFiles(PROJECT)).toEqual([`${PROJECT}/.opencode`, `${PROJECT}/opencode.json`, `${PROJECT}/opencode.jsonc`]);
  });

  it.each([
    ['an npm plugin in its cache', 'write', { filePath: `${HOME}/.cache/opencode/node_modules/some-plugin/index.js`, content: 'export const X = async () => ({})' }],
    ['a project plugin', 'write', { filePath: '.opencode/plugins/evil.js', content: 'export const X = async () => ({})' }],
    ['a project plugin in a subfolder .opencode', 'write', { filePath: `${PROJECT}/sub/.opencode/plugin/evil.ts`, content: 'x' }],
    ["recap's own plugin", 'edit', { filePath: '/cfg/opencode/plugins/recap.js', oldString: 'throw', newString: '' }],
    ['~/.opencode', 'write', { filePath: '~/.opencode/plugins/x.js', content: 'x' }],
    ['OPENCODE_CONFIG_DIR', 'write', { filePath: '/team/opencode/plugins/x.js', content: 'x' }],
    ["the project's opencode.json", 'edit', { filePath: 'opencode.json', oldString: '{', newString: '{"plugin":["file:///tmp/x.js"],' }],
    ['a patch adding a plugin', 'apply_patch', { patchText: '*** Begin Patch\n*** Add File: .opencode/plugins/x.js\n+x\n*** End Patch' }],
    ['bash writing a plugin', 'bash', { command: 'mkdir -p .opencode/plugins && cp /tmp/x.js .opencode/plugins/', description: 'x' }],
    ['bash in the plugins folder', 'bash', { command: 'rm recap.js', workdir: '/cfg/opencode/plugins', description: 'x' }],
    ['bash naming opencode.json', 'bash', { command: "sed -i 's/x/y/' opencode.json", description: 'x' }],
    ['the opencode command uninstalling itself', 'bash', { command: 'opencode uninstall --force', description: 'x' }],
  ])('%s is refused', (_name, tool, input) => {
    expect(refusal(tool, input)).toBeDefined();
  });

  it('reading them, and ordinary work, stay allowed', () => {
    expect(refusal('read', { filePath: '/cfg/opencode/plugins/recap.js' })).toBeUndefined();
    expect(refusal('write', { filePath: `${PROJECT}/src/a.ts`, content: 'x' })).toBeUndefined();
    expect(refusal('bash', { command: 'cat .opencode/plugins/recap.js', description: 'x' })).toBeUndefined();
    expect(refusal('bash', { command: 'npm test', description: 'x' })).toBeUndefined();
  });
});

describe("recap's plugin file", () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  const options = () => ({ scope: 'user' as const, project: join(home, 'project'), env });

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'recap-opencode-'));
    env = { HOME: home, XDG_CONFIG_HOME: join(home, 'cfg'), RECAP_SOCKET: join(home, 'run', 'recapd.sock'), RECAP_DATA_DIR: join(home, 'data') };
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("is the compiled plugin with this environment's paths, one export, no placeholder left", () => {
    const text = renderPlugin(pluginSettings(env));
    expect(text.split('\n')[0]).toMatch(/^\/\/ recap: written by `recap install opencode`/);
    const settings = JSON.parse(/^const SETTINGS = (\{.*\});$/m.exec(text)![1]!);
    expect(settings).toMatchObject({
      node: process.execPath,
      socket: env.RECAP_SOCKET,
      launcher: join(home, 'data', 'bin', 'recap'),
      events: { prompt: 'chat_message', tool: 'tool_execute_before', memory: 'system_transform' },
      sessionVariable: 'RECAP_OPENCODE_SESSION_ID',
    });
    expect(settings.environment).toMatchObject({ RECAP_SOCKET: env.RECAP_SOCKET, NODE_OPTIONS: '' });
    expect(text.match(/^export /gm)).toEqual(['export ']);
    expect(text).not.toContain('sourceMappingURL');
    expect(text).not.toMatch(/^import .* from '(?!node:)/m);
  });

  it('installs once, idempotently; refuses a file not its own and a project scope; uninstalls only its own', () => {
    const file = pluginFile(env);
    expect(file).toBe(join(home, 'cfg', 'opencode', 'plugins', 'recap.js'));
    expect(installPlugin(options())).toEqual({ file, changed: true, mode: 'plugin', warnings: [] });
    expect(installPlugin(options())).toMatchObject({ changed: false });
    expect(readdirSync(join(home, 'cfg', 'opencode', 'plugins'))).toEqual(['recap.js']);
    expect(() => installPlugin({ ...options(), scope: 'project' })).toThrow(/without --scope project/);
    expect(uninstallPlugin(options())).toEqual([file]);
    expect(uninstallPlugin(options())).toEqual([]);
    writeFileSync(file, 'export const Mine = async () => ({})\n');
    expect(() => installPlugin(options())).toThrow(/is not recap's plugin; move it aside/);
    expect(uninstallPlugin(options())).toEqual([]);
    expect(readFileSync(file, 'utf8')).toContain('Mine');
  });

  it('warns at install when OPENCODE_PURE would switch it off', () => {
    expect(installPlugin({ ...options(), env: { ...env, OPENCODE_PURE: '1' } }).warnings).toEqual([expect.stringMatching(/^OPENCODE_PURE=1 is set here: .* loads no plugins/)]);
  });

  describe('recap doctor', () => {
    const project = () => join(home, 'project');

    it('says nothing where opencode is not in use, and that the plugin is missing where it is', () => {
      expect(opencodeDoctor(project(), env)).toEqual([]);
      mkdirSync(join(home, 'cfg', 'opencode'), { recursive: true });
      expect(opencodeDoctor(project(), env)).toEqual([
        expect.objectContaining({ ok: false, detail: expect.stringContaining("recap's plugin is not in"), fix: 'recap install opencode' }),
      ]);
    });

    it('loads the installed plugin and finds its hooks', () => {
      installPlugin(options());
      expect(opencodeDoctor(project(), env)).toEqual([
        expect.objectContaining({ name: 'opencode', ok: true, detail: expect.stringContaining('loads and hands opencode its chat.message') }),
      ]);
    });

    it('says when the plugin names a Node or recap-hook that is gone, or another socket', () => {
      installPlugin(options());
      const file = pluginFile(env);
      writeFileSync(file, renderPlugin(pluginSettings(env, join(home, 'old-node'))));
      expect(opencodeDoctor(project(), env)[0]).toMatchObject({ ok: false, detail: expect.stringContaining(`${join(home, 'old-node')}, which does not exist`) });
      writeFileSync(file, renderPlugin(pluginSettings({ ...env, RECAP_SOCKET: '/elsewhere.sock' })));
      expect(opencodeDoctor(project(), env)[0]).toMatchObject({ ok: false, detail: expect.stringContaining('asks the daemon on /elsewhere.sock') });
    });

    it('says when the plugin does not load, which opencode would not say', () => {
      installPlugin(options());
      const file = pluginFile(env);
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace('export const RecapPlugin = async', 'export const RecapPlugin = async async'));
      expect(opencodeDoctor(project(), env)[0]).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/recap\.js does not load \(.+\), and opencode skips such a plugin without a word$/),
      });
      writeFileSync(file, text.replace("'shell.env': async", "'shell.environment': async"));
      expect(opencodeDoctor(project(), env)[0]).toMatchObject({ ok: false, detail: expect.stringContaining('loads but hands opencode no shell.env hook') });
    });

    it('says when OPENCODE_PURE switches every plugin off', () => {
      installPlugin(options());
      expect(opencodeDoctor(project(), { ...env, OPENCODE_PURE: 'true' })).toEqual([
        expect.objectContaining({ ok: true }),
        expect.objectContaining({ name: 'opencode pure', ok: false, detail: expect.stringContaining('loads no plugins') }),
      ]);
    });
  });
});
