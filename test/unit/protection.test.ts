// recap's own files and setup are off limits to the agent, tripped gate or not:
// given recap's protected paths, when a tool call names them, then it is refused.
import { describe, expect, it } from 'vitest';
import type { CheckTool } from '../../src/events/commands.js';
import type { DecideContext } from '../../src/events/decision.js';
import { checkTool } from '../../src/events/gate.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { decodings } from '../../src/events/pathNames.js';
import { protectedPaths } from '../../src/agents/recapPaths.js';
import { codeManifestPath } from '../../src/common/paths.js';
import { context, gateTripped, interactionRecorded, JOB, stateFrom, T0, toolDenied, validSummary } from '../helpers/spec.js';
import { claudeFacts, claudeToolCall } from '../../src/agents/claude/facts.js';

const HOME = '/home/ann';
const PROJECT = '/home/ann/src/app';
const CWD = PROJECT;
const RECAP_BIN = '/opt/recap/bin/recap.js';
// The launcher the daemon keeps in its data folder: the only name of recap the gate accepts.
const LAUNCHER = `${HOME}/.local/share/recap/bin/recap`;
const RECAP_PATHS: ReadonlySet<string> = new Set([LAUNCHER]);

// The daemon's own list for this environment, plus the project's .recap as the handler adds it.
const ENV = { HOME, XDG_RUNTIME_DIR: '/run/user/1000', XDG_DATA_HOME: `${HOME}/.local/share`, XDG_CONFIG_HOME: `${HOME}/.config` };
const DATA = `${HOME}/.local/share/recap`;
const SOCKET = '/run/user/1000/recap/recapd.sock';
const USER_CONFIG = `${HOME}/.config/recap/config.conf`;
const PROJECT_CONFIG = `${PROJECT}/.recap/config.conf`;
const AGENTS = { settingsNames: claudeFacts.settingsNames, shellVariables: claudeFacts.shellVariables };
const PROTECTED: ProtectedState = { paths: [...protectedPaths(ENV), `${PROJECT}/.recap`], home: HOME, ...AGENTS };

const when = (tool: string, input: unknown, cwd: string | undefined = CWD) => protectionRefusal(claudeToolCall(tool, input), cwd, PROTECTED, RECAP_PATHS);
const bash = (command: string) => when('Bash', { command });

describe("given recap's protected paths", () => {
  it("then they are the data folder, the socket and its folder, the hook launcher's socket, the user config and its folder, the project .recap", () => {
    expect(PROTECTED.paths).toEqual([DATA, SOCKET, '/run/user/1000/recap', '/run/user/1000/recap/recapd.http.sock', USER_CONFIG, `${HOME}/.config/recap`, `${PROJECT}/.recap`]);
  });

  it("then a socket outside a folder of recap's own still has the launcher's socket beside it protected", () => {
    const paths = protectedPaths({ ...ENV, RECAP_SOCKET: '/tmp/shared/my.sock' });
    expect(paths).toEqual(expect.arrayContaining(['/tmp/shared/my.sock', '/tmp/shared/my.http.sock']));
    expect(paths).not.toContain('/tmp/shared');
  });

  describe('when a file tool names one of them', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['Read', { file_path: `${DATA}/log/CURRENT` }, DATA],
      ['Read', { file_path: DATA }, DATA],
      ['Read', { file_path: `${DATA}/recapd.log`, offset: 10, limit: 20 }, DATA],
      ['Read', { file_path: `${DATA}/http-token` }, DATA],
      ['Read', { file_path: SOCKET }, SOCKET],
      ['Read', { file_path: USER_CONFIG }, USER_CONFIG],
      ['Read', { file_path: PROJECT_CONFIG }, `${PROJECT}/.recap`],
      ['Write', { file_path: USER_CONFIG, content: 'TOKEN_THRESHOLD=999999\n' }, USER_CONFIG],
      ['Write', { file_path: PROJECT_CONFIG, content: 'TOKEN_THRESHOLD=999999\n' }, `${PROJECT}/.recap`],
      ['Write', { file_path: `${DATA}/log/000005.log`, content: '' }, DATA],
      ['Edit', { file_path: USER_CONFIG, old_string: '500', new_string: '50000' }, USER_CONFIG],
      ['Edit', { file_path: PROJECT_CONFIG, old_string: '500', new_string: '50000' }, `${PROJECT}/.recap`],
      ['MultiEdit', { file_path: PROJECT_CONFIG, edits: [{ old_string: 'a', new_string: 'b' }] }, `${PROJECT}/.recap`],
      ['MultiEdit', { file_path: `${DATA}/log/MANIFEST-000001`, edits: [] }, DATA],
      ['NotebookEdit', { notebook_path: `${DATA}/x.ipynb`, new_source: '' }, DATA],
      ['NotebookEdit', { notebook_path: `${PROJECT}/.recap/n.ipynb`, new_source: '' }, `${PROJECT}/.recap`],
      ['Glob', { pattern: '*', path: DATA }, DATA],
      ['Glob', { pattern: '**/*', path: '/run/user/1000/recap' }, '/run/user/1000/recap'],
      ['Grep', { pattern: 'TOKEN', path: USER_CONFIG }, USER_CONFIG],
      ['Grep', { pattern: 'InteractionRecorded', path: `${DATA}/log`, output_mode: 'content' }, DATA],
      ['Grep', { pattern: 'TOKEN', path: `${PROJECT}/.recap` }, `${PROJECT}/.recap`],
      // The manifest of recap's code that the daemon checks at start: rewritten, it would vouch for changed code.
      ['Write', { file_path: codeManifestPath(ENV), content: '{}' }, DATA],
      ['Edit', { file_path: codeManifestPath(ENV), old_string: 'a', new_string: 'b' }, DATA],
    ];
    it.each(cases)('%s %j, then it is refused naming %s', (tool, input, hit) => {
      const refusal = when(tool, input);
      expect(refusal).toBeDefined();
      expect(refusal).toContain(`${tool} on `);
      expect(refusal).toContain(`(${hit})`);
    });
  });

  describe('when a file tool names one of them by a relative path, then it is resolved against cwd', () => {
    it.each([
      ['Read', { file_path: '.recap/config.conf' }, CWD],
      ['Read', { file_path: '.recap/config.conf' }, CWD],
      ['Edit', { file_path: 'src/../.recap/config.conf', old_string: 'a', new_string: 'b' }, CWD],
      ['Write', { file_path: '../.recap/config.conf', content: '' }, `${PROJECT}/src`],
      ['Read', { file_path: '.local/share/recap/log/CURRENT' }, HOME],
      ['Read', { file_path: 'recapd.sock' }, '/run/user/1000/recap'],
      ['Grep', { pattern: 'x', path: '.recap' }, CWD],
      ['Read', { file_path: `${PROJECT.slice(1)}/.recap/config.conf` }, '/'],
    ])('%s %j in %s', (tool, input, cwd) => {
      expect(when(tool, input, cwd)).toMatch(/touches recap's own files/);
    });

    it('and with no cwd a relative path is taken from the root', () => {
      const noCwd = (input: unknown) => protectionRefusal(claudeToolCall('Read', input), undefined, PROTECTED, RECAP_PATHS);
      expect(noCwd({ file_path: 'home/ann/.config/recap/config.conf' })).toContain(`(${USER_CONFIG})`);
      expect(noCwd({ file_path: '.recap/config.conf' })).toBeUndefined();
    });
  });

  describe('when a file tool names one of them by a ~ path, then ~ is the home', () => {
    it.each([
      ['Read', { file_path: '~/.config/recap/config.conf' }],
      ['Write', { file_path: '~/.local/share/recap/log/LOCK', content: '' }],
      ['Edit', { file_path: '~/src/app/.recap/config.conf', old_string: 'a', new_string: 'b' }],
      ['Glob', { pattern: '*', path: '~/.local/share/recap' }],
      ['Grep', { pattern: 'x', path: '~/.config/recap' }],
    ])('%s %j', (tool, input) => {
      expect(when(tool, input, '/tmp')).toMatch(/touches recap's own files/);
    });
  });

  describe('when a Glob pattern reaches into them', () => {
    it.each([
      [{ pattern: '.recap/*' }],
      [{ pattern: '.recap/**/*.conf' }],
      [{ pattern: '**/*.conf', path: '~/.config/recap' }],
      [{ pattern: 'recap/**', path: `${HOME}/.local/share` }],
      [{ pattern: 'recap/log/*.ldb', path: `${HOME}/.local/share` }],
      [{ pattern: '.local/share/recap/**', path: HOME }],
      [{ pattern: 'share/recap*', path: `${HOME}/.local` }],
      [{ pattern: 'recap/*.sock', path: '/run/user/1000' }],
      [{ pattern: '../app/.recap/*' }],
    ])('%j, then it is refused', (input) => {
      expect(when('Glob', input)).toMatch(/^Glob on .* touches recap's own files/);
    });

    it('an absolute Glob pattern into the data folder is refused', () => {
      expect(when('Glob', { pattern: `${DATA}/**/*` })).toMatch(/touches recap's own files/);
    });

    it('a Glob pattern with a wildcard in the protected folder name is refused', () => {
      expect(when('Glob', { pattern: '.local/share/rec*/log/*', path: HOME })).toMatch(/touches recap's own files/);
    });
  });

  describe('when a Bash command names one of them', () => {
    it.each([
      `cat ${DATA}/recapd.log`,
      `cat ${USER_CONFIG}`,
      `cat ${PROJECT_CONFIG}`,
      `rm -rf ${PROJECT}/.recap`,
      `nc -U ${SOCKET}`,
      `socat - UNIX-CONNECT:${SOCKET}`,
      'cat ~/.local/share/recap/log/CURRENT',
      'ls ~/.local/share/recap',
      "sed -i 's/500/99999/' ~/.config/recap/config.conf",
      'echo TOKEN_THRESHOLD=999999 >> $HOME/.config/recap/config.conf',
      'cat ${HOME}/.local/share/recap/http-token',
      'cp -r $HOME/.local/share/recap /tmp/steal',
      `cd /tmp && tar czf x.tgz ${DATA}`,
      `python3 -c "print(open('${USER_CONFIG}').read())"`,
    ])('%s, then it is refused', (command) => {
      expect(bash(command)).toMatch(/^the command touches recap's own files \(/);
    });

    it('then the refusal names the spelling it found', () => {
      expect(bash('cat ~/.config/recap/config.conf')).toBe("the command touches recap's own files (~/.config/recap/config.conf)");
      expect(bash('cat $HOME/.local/share/recap/x')).toBe("the command touches recap's own files ($HOME/.local/share/recap)");
      expect(bash('cat ${HOME}/.local/share/recap/x')).toBe("the command touches recap's own files (${HOME}/.local/share/recap)");
    });

    it('a Bash command writing the project config by a relative path is refused', () => {
      expect(bash('echo TOKEN_THRESHOLD=999999 > .recap/config.conf')).toBeDefined();
    });

    it('a quoted $HOME spelling ("$HOME"/.config/recap/config.conf) is refused', () => {
      expect(bash('cat "$HOME"/.config/recap/config.conf')).toBeDefined();
    });
  });

  describe('when Bash runs a recap command that changes the setup', () => {
    it.each([
      ['recap install claude', 'install'],
      ['recap install claude --scope project --http', 'install'],
      ['recap install systemd', 'install'],
      ['recap uninstall claude', 'uninstall'],
      ['recap daemon', 'daemon'],
      ['recap trip', 'trip'],
      ['recap import', 'import'],
      ['recap stop', 'stop'],
      ['recap restart', 'restart'],
      ['recap reload', 'reload'],
      ['recap --json stop', 'stop'],
      ['recap doctor --fix', 'doctor --fix'],
      ['recap doctor --json --fix', 'doctor --fix'],
      ["recap stop 'unterminated", 'stop'],
      ['cd x && recap uninstall claude', 'uninstall'],
      ['recap status; recap uninstall claude', 'uninstall'],
      ['true || recap trip', 'trip'],
      ['echo y | recap install claude', 'install'],
      ['nohup recap daemon &', 'daemon'],
      ['env RECAP_JOB=x recap trip', 'trip'],
      ['npx recap uninstall claude', 'uninstall'],
      [`${RECAP_BIN} uninstall claude`, 'uninstall'],
      ['/usr/local/bin/recap daemon', 'daemon'],
      ['/somewhere/else/recap install claude', 'install'],
      ["'recap' uninstall claude", 'uninstall'],
      ['"recap" trip', 'trip'],
      ["recap 'uninstall' claude", 'uninstall'],
      ['re""cap un\'\'install claude', 'uninstall'],
      ['\\recap uninstall claude', 'uninstall'],
      ['recap uninstall claude <<EOF\n$(whoami)\nEOF', 'uninstall'],
      ["recap trip 'unterminated", 'trip'],
    ])('%j, then it is refused as recap %s', (command, sub) => {
      expect(bash(command)).toBe(`recap ${sub} changes recap's setup; only the user may run it, outside the agent`);
    });

    // Every word pair is looked at, erring on the side of refusing: "recap" as an argument
    // followed by a setup word is refused too (harmless, recorded here as the behaviour).
    it('then a recap word followed by a setup word anywhere, even as arguments of echo, is refused', () => {
      expect(bash('echo recap uninstall')).toBe("recap uninstall changes recap's setup; only the user may run it, outside the agent");
    });

    it('a setup command after a global option (recap --json uninstall claude) is refused', () => {
      expect(bash('recap --json uninstall claude')).toBeDefined();
    });

    it('a setup command split by a line continuation (recap uninstall\\<newline> claude) is refused', () => {
      expect(bash('recap uninstall\\\n claude')).toBeDefined();
    });
  });

  describe('when the call is ordinary, then it is not refused', () => {
    it.each([
      ['Read', { file_path: `${PROJECT}/README.md` }],
      ['Read', { file_path: 'src/index.ts' }],
      ['Read', { file_path: '~/.bashrc' }],
      ['Read', { file_path: HOME }],
      ['Write', { file_path: `${PROJECT}/.recapignore`, content: '' }],
      ['Read', { file_path: `${HOME}/.local/share/recap-old/notes.txt` }],
      ['Read', { file_path: `${HOME}/.local/share/recapture.txt` }],
      ['Read', { file_path: '/run/user/1000/recap-other/x' }],
      ['Read', { file_path: `${HOME}/.config/recap2/config.conf` }],
      ['Edit', { file_path: `${PROJECT}/src/.recap.ts`, old_string: 'a', new_string: 'b' }],
      ['Glob', { pattern: 'src/**/*.ts' }],
      ['Glob', { pattern: '**/*.md', path: `${HOME}/docs` }],
      ['Grep', { pattern: 'recap', path: 'src' }],
      ['Grep', { pattern: '.local/share/recap' }],
      ['Read', { file_path: 42 }],
      ['Read', null],
      ['Read', 'not an object'],
      ['TodoWrite', { todos: [] }],
    ])('%s %j', (tool, input) => {
      expect(when(tool, input)).toBeUndefined();
    });

    it.each([
      `${LAUNCHER} status`,
      `${LAUNCHER} context`,
      `${LAUNCHER} chain --json`,
      `${LAUNCHER} submit --file summary.md`,
      `${LAUNCHER} submit <<'EOF'\n## User Requests\nrecap install claude was discussed\nEOF`,
      'grep recap README.md',
      'grep -rn "recap install" docs/',
      'git log --grep=recap',
      'cat README.md',
      'ls ~/.local/share',
      `ls ${HOME}/.config`,
      '',
    ])('Bash %j', (command) => {
      expect(bash(command)).toBeUndefined();
    });

    it('a Bash call whose command is not a string', () => {
      expect(when('Bash', { command: 42 })).toBeUndefined();
      expect(when('Bash', undefined)).toBeUndefined();
    });

    it('Bash on a path that merely shares a prefix with the data folder (recap-old) is not refused', () => {
      expect(bash(`cat ${HOME}/.local/share/recap-old/notes.txt`)).toBeUndefined();
    });

    it('Bash on ~/.config/recap.bak (shares the prefix of the config folder) is not refused', () => {
      expect(bash('cat ~/.config/recap.bak')).toBeUndefined();
    });
  });

  describe('when the way out would read a summary from one of them with --file', () => {
    it.each([`${LAUNCHER} submit --file ${DATA}/recapd.log`, `${LAUNCHER} submit --file=../../.config/recap/config.conf`, `${LAUNCHER} submit --json --file .recap/config.conf`])(
      'then %j is refused: recap would read its own file for the agent',
      (command) => {
        expect(bash(command)).toContain('into a summary');
      },
    );

    it('then a summary from any other file, or from stdin, passes', () => {
      expect(bash(`${LAUNCHER} submit --file notes/summary.md`)).toBeUndefined();
      expect(bash(`${LAUNCHER} submit --file -`)).toBeUndefined();
    });
  });

  describe('when a tool of unknown shape names one of them relative to the folder, without ./', () => {
    it.each([
      ['mcp__fs__write_file', { path: '.recap/config.conf', content: 'x' }],
      ['mcp__fs__move_file', { source: 'a', destination: '../../.local/share/recap/log/x' }],
      ['SomeTool', { nested: [{ target: '.recap' }] }],
    ])('then %s %j is refused', (tool, input) => {
      expect(when(tool, input)).toContain("touches recap's own files");
    });

    it('then strings that are no such path pass', () => {
      expect(when('mcp__github__create_issue', { title: 'Fix .recap docs', body: 'See recap/log\nfor details', repo: 'recap' })).toBeUndefined();
    });
  });
});

describe('checkTool with protected paths', () => {
  const ctx: DecideContext = { ...context(), protected: PROTECTED, recapPaths: RECAP_PATHS };
  const command = (tool: string, input: unknown, extra: Partial<CheckTool> = {}): CheckTool => ({
    type: 'CheckTool',
    job: JOB,
    call: claudeToolCall(tool, input),
    cwd: CWD,
    now: T0,
    ...extra,
  });

  it('given an open gate, when the agent Reads the user config, then it is denied with a ToolDenied event and a reason pointing to recap context / recap chain', () => {
    const decision = checkTool(command('Read', { file_path: '~/.config/recap/config.conf' }), stateFrom([]), ctx);
    expect(decision.events).toEqual([toolDenied('Read', 'protected')]);
    expect(decision.answer.allow).toBe(false);
    const reason = decision.answer.allow ? '' : decision.answer.reason;
    expect(reason).toContain("Read on ~/.config/recap/config.conf touches recap's own files");
    expect(reason).toContain(`${LAUNCHER} context`);
    expect(reason).toContain(`${LAUNCHER} chain`);
    expect(reason).not.toContain("recap submit <<'EOF'");
  });

  it('given an open gate, when the agent Reads the project config by a relative path in a session, then the ToolDenied records the session', () => {
    const decision = checkTool(command('Read', { file_path: '.recap/config.conf' }, { session: 's-1' }), stateFrom([]), ctx);
    expect(decision.events).toEqual([{ type: 'ToolDenied', data: { job: JOB, tool: 'Read', cause: 'protected', session: 's-1', time: T0 } }]);
  });

  it('given an open gate, when Bash runs recap uninstall claude, then it is denied with a ToolDenied event', () => {
    const decision = checkTool(command('Bash', { command: 'cd /tmp && recap uninstall claude' }), stateFrom([]), ctx);
    expect(decision.events).toEqual([toolDenied('Bash', 'protected')]);
    expect(decision.answer).toEqual({
      allow: false,
      reason: expect.stringContaining("recap uninstall changes recap's setup; only the user may run it, outside the agent"),
    });
  });

  it('given an open gate, when an ordinary file is read, then it is allowed and nothing is stored', () => {
    const decision = checkTool(command('Read', { file_path: 'README.md' }), stateFrom([]), ctx);
    expect(decision).toEqual({ answer: { allow: true }, events: [] });
  });

  it('given a tripped gate, when the agent edits the config, then the refusal is the protection one, not the summary demand', () => {
    const tripped = stateFrom([interactionRecorded(600), gateTripped(600)]);
    const decision = checkTool(command('Edit', { file_path: USER_CONFIG, old_string: '500', new_string: '5000' }), tripped, ctx);
    expect(decision.events).toEqual([toolDenied('Edit', 'protected')]);
    const reason = decision.answer.allow ? '' : decision.answer.reason;
    expect(reason).toContain("touches recap's own files");
    expect(reason).not.toContain('needs a summary');
  });

  it('given a tripped gate, when the agent runs recap status, then it is allowed', () => {
    const tripped = stateFrom([interactionRecorded(600), gateTripped(600)]);
    expect(checkTool(command('Bash', { command: `${LAUNCHER} status` }), tripped, ctx)).toEqual({ answer: { allow: true }, events: [] });
  });

  it('given a tripped gate, a recap submit whose summary mentions ~/.config/recap/config.conf is allowed', () => {
    const tripped = stateFrom([interactionRecorded(600), gateTripped(600)]);
    const summary = validSummary().replace('detail', 'we raised TOKEN_THRESHOLD in ~/.config/recap/config.conf and');
    const decision = checkTool(command('Bash', { command: `${LAUNCHER} submit <<'EOF'\n${summary}\nEOF` }), tripped, ctx);
    expect(decision.answer).toEqual({ allow: true });
  });
});

describe('given what wires recap in and runs it (read-only to the agent) and the folders on PATH', () => {
  const NODE = '/home/ann/.nvm/versions/node/v20.19.0/bin/node';
  const SETUP: ProtectedState = {
    ...PROTECTED,
    readOnly: [`${HOME}/.claude/settings.json`, `${PROJECT}/.claude/settings.json`, `${PROJECT}/.claude/settings.local.json`, '/opt/recap/bin', '/opt/recap/dist', NODE],
    shadowDirs: [`${HOME}/.local/bin`, `${HOME}/bin`, '/usr/local/bin'],
  };
  const check = (tool: string, input: unknown, cwd: string | undefined = CWD) => protectionRefusal(claudeToolCall(tool, input), cwd, SETUP, RECAP_PATHS);

  it.each([
    ['Write', { file_path: '.claude/settings.json', content: '{}' }],
    ['Edit', { file_path: '~/.claude/settings.json', old_string: 'a', new_string: 'b' }],
    ['Write', { file_path: '/proc/self/cwd/.claude/settings.local.json', content: '{}' }],
    ['Write', { file_path: '/proc/self/root/opt/recap/bin/recap-hook.cjs', content: '' }],
    ['MultiEdit', { file_path: '/opt/recap/dist/events/gate.js', edits: [] }],
    ['Write', { file_path: NODE, content: '' }],
  ])('when %s %j, then it is refused as a change to the setup', (tool, input) => {
    expect(check(tool, input)).toMatch(/would change what wires recap in or runs it/);
  });

  it('when Write names a Claude Code settings file anywhere (a symlinked home), then it is refused', () => {
    expect(check('Write', { file_path: 'h/.claude/settings.json', content: '{}' })).toMatch(/would change Claude Code's settings/);
    expect(check('Edit', { file_path: '/tmp/x/.claude/settings.local.json', old_string: 'a', new_string: 'b' })).toMatch(/settings/);
  });

  it.each([
    ['Write', { file_path: '~/.local/bin/node', content: '' }],
    ['Write', { file_path: '/usr/local/bin/recap', content: '' }],
    ['Edit', { file_path: `${HOME}/bin/recap-hook`, old_string: 'a', new_string: 'b' }],
    ['Write', { file_path: '/proc/self/cwd/../../.local/bin/node', content: '' }],
  ])('when %s %j, then it is refused as a shadow on PATH', (tool, input) => {
    expect(check(tool, input)).toMatch(/on PATH in front of the real one/);
  });

  it.each([
    ['Read', { file_path: '.claude/settings.json' }],
    ['Grep', { pattern: 'hooks', path: '~/.claude/settings.json' }],
    ['Read', { file_path: '/opt/recap/dist/events/gate.js' }],
    ['Write', { file_path: '~/.local/bin/nodemon', content: '' }],
    ['Write', { file_path: `${PROJECT}/bin/node`, content: '' }],
    ['Write', { file_path: `${PROJECT}/.claude/agents/reviewer.md`, content: '' }],
  ])('when %s %j, then it is not refused (reading is harmless; other names and folders are not shadows)', (tool, input) => {
    expect(check(tool, input)).toBeUndefined();
  });

  it.each([
    "sed -i 's/a/b/' .claude/settings.json",
    'rm -rf .claude',
    "cd .claude && sed -i 's/a/b/' settings.json",
    'git checkout -- .claude/settings.json',
    "echo '{}' > /proc/self/cwd/.claude/settings.json",
    'cp /tmp/x /opt/recap/bin/recap-hook.cjs',
    `python3 -c "open('${NODE}', 'w')"`,
  ])('when Bash runs %j, then it is refused as a change to the setup', (command) => {
    expect(check('Bash', { command })).toMatch(/could change (what wires recap in or runs it|Claude Code's settings)/);
  });

  it.each(['ln -s /tmp/evil ~/.local/bin/node', 'cd ~/bin && cp /tmp/evil node', "python3 -c \"open('/usr/local/bin/node', 'w').write('x')\"", 'cp /tmp/node $HOME/.local/bin/'])(
    'when Bash runs %j, then it is refused as a shadow on PATH',
    (command) => {
      expect(check('Bash', { command })).toMatch(/on PATH in front of the real one/);
    },
  );

  // Everyday git that names no file is the agent's own work, though it may drop a project's
  // uncommitted hooks with the rest: the README lists that among what recap cannot stop.
  it.each([
    'git checkout -- src/a.ts',
    'git stash list',
    'git stash pop',
    'git reset HEAD src/a.ts',
    'git clean -n',
    'git checkout -b feature',
    'git checkout -- .',
    'git stash -u',
    'git reset --hard HEAD~1',
    'git clean -fdx',
  ])('when Bash runs %j, which names no setup file, then it is not refused', (command) => {
    expect(check('Bash', { command })).toBeUndefined();
  });

  it.each(['cat .claude/settings.json', 'grep -n hooks ~/.claude/settings.json', 'ls ~/.local/bin', 'git diff .claude/settings.json', 'node --version'])(
    'when Bash runs the reader %j, then it is not refused',
    (command) => {
      expect(check('Bash', { command })).toBeUndefined();
    },
  );
});

describe('given paths spelled as URIs, percent-escapes or split across fields (issue 25, item 10)', () => {
  it.each([
    ['mcp__fs__read_file', { path: `file://${USER_CONFIG}` }],
    ['mcp__fs__read_file', { uri: `file://localhost${USER_CONFIG}` }],
    ['mcp__fs__read_file', { uri: `file:${USER_CONFIG}` }],
    ['mcp__fs__write_file', { path: 'file:///home/ann/.config/%72ecap/config.conf', content: 'TOKEN_THRESHOLD=999999' }],
    ['mcp__fs__write_file', { path: 'file:///home/ann/.config%2Frecap%2Fconfig.conf', content: '' }],
    ['mcp__fs__write_file', { path: '%2Fhome%2Fann%2F.config%2Frecap%2Fconfig.conf', content: '' }],
    ['mcp__fs__read_file', { path: 'file:%2F%2F%2Fhome/ann/.config/recap/config.conf' }],
    ['mcp__fs__read_file', { path: 'file:///home/ann/.config/%2572ecap/config.conf' }],
    ['mcp__fs__read_file', { path: `FILE://${DATA}/log/CURRENT?raw=1#top` }],
    ['WebFetch', { url: `file://${USER_CONFIG}`, prompt: 'x' }],
  ])('when %s %j, then it is refused as touching the user config', (tool, input) => {
    expect(when(tool, input)).toMatch(/touches recap's own files \(\/home\/ann\/(\.config\/recap|\.local\/share\/recap)/);
  });

  it('when Bash names the config as a percent-encoded file: URI (curl), then it is refused', () => {
    expect(bash('curl -s file:///home/ann/.config/%72ecap/config.conf')).toMatch(/touches recap's own files/);
  });

  it.each([
    [{ dir: `${HOME}/.config/recap`, name: 'config.conf' }],
    [{ path: `${HOME}/.config`, file: 'recap/config.conf', content: 'x' }],
    [{ root: '~/.local/share', relative: 'recap/log/CURRENT' }],
    [{ folder: `file://${HOME}/.config/`, filename: 'recap/config.conf' }],
    [{ target: { base: `${HOME}/.config/recap/`, entry: 'config.conf' } }],
    [{ parts: [`${HOME}/.config`, 'recap/config.conf'] }],
  ])('when an MCP tool splits the path across fields %j, then the join is judged and refused', (input) => {
    expect(when('mcp__fs__write_file', input)).toMatch(/touches recap's own files/);
  });

  it.each([
    [{ dir: PROJECT, name: 'README.md' }],
    [{ path: `${HOME}/.config`, file: 'recap2/config.conf' }],
    [{ url: 'https://example.com/%72ecap', title: 'recap' }],
    [{ path: 'file:///home/ann/notes/recap.md' }],
  ])("when an MCP tool names %j, which leads nowhere of recap's, then it is not refused", (input) => {
    expect(when('mcp__fs__write_file', input)).toBeUndefined();
  });

  it('decodings: a file: URI and its escapes give the path, a plain path is itself alone', () => {
    expect(decodings('file:///home/ann/.config/%72ecap/config.conf')).toEqual(['file:///home/ann/.config/%72ecap/config.conf', '/home/ann/.config/recap/config.conf']);
    expect(decodings('/a/100%zz')).toEqual(['/a/100%zz']);
    expect(decodings('/a/%ff')).toEqual(['/a/%ff', '/a/\u00ff']);
    expect(decodings('src/index.ts')).toEqual(['src/index.ts']);
  });
});

describe('given links on the disk, as a follower reports them (issue 25, item 6)', () => {
  // The agent made, in its project: r -> /, cfg -> ~/.config/recap, pkg -> /opt/recap, out -> /tmp/out,
  // and a dangling conf -> ~/.config/recap/config.conf. The follower stands for the daemon's disk.
  const LINKS: [string, string][] = [
    [`${PROJECT}/r`, '/'],
    [`${PROJECT}/cfg`, `${HOME}/.config/recap`],
    [`${PROJECT}/pkg`, '/opt/recap'],
    [`${PROJECT}/out`, '/tmp/out'],
    [`${PROJECT}/conf`, USER_CONFIG],
  ];
  const follow = (path: string): string => {
    for (const [link, target] of LINKS) if (path === link || path.startsWith(`${link}/`)) return follow(target + path.slice(link.length)).replace(/\/\/+/g, '/');
    return path.replace(/\/[^/]+\/\.\.(?=\/|$)/, '') || '/';
  };
  let followers = 0;
  const LINKED: ProtectedState = {
    ...PROTECTED,
    readOnly: ['/opt/recap'],
    links: () => {
      followers += 1;
      return follow;
    },
  };
  const check = (tool: string, input: unknown, cwd: string | undefined = CWD) => protectionRefusal(claudeToolCall(tool, input), cwd, LINKED, RECAP_PATHS);

  it.each([
    ['Write', { file_path: `r${USER_CONFIG}`, content: 'TOKEN_THRESHOLD=999999' }, USER_CONFIG],
    ['Read', { file_path: `r${DATA}/log/CURRENT` }, DATA],
    ['Write', { file_path: `${PROJECT}/r${DATA}/verdicts.json`, content: '{}' }, DATA],
    ['Edit', { file_path: 'cfg/config.conf', old_string: '300', new_string: '999999' }, USER_CONFIG],
    ['Write', { file_path: 'conf', content: 'TOKEN_THRESHOLD=999999' }, USER_CONFIG],
    ['Glob', { pattern: '**/*', path: 'cfg' }, `${HOME}/.config/recap`],
    ['Glob', { pattern: `r${HOME}/.config/recap/*` }, USER_CONFIG],
    ['mcp__fs__read_file', { path: `file://${PROJECT}/r${USER_CONFIG}` }, USER_CONFIG],
    ['mcp__fs__write_file', { dir: 'cfg', name: 'config.conf' }, `${HOME}/.config/recap`],
    ['Bash', { command: `cat r${DATA}/log/CURRENT` }, DATA],
    ['Bash', { command: 'sed -i s/300/999999/ cfg/config.conf' }, USER_CONFIG],
    ['Bash', { command: `/launcher-free/cmd --out=r${USER_CONFIG}` }, USER_CONFIG],
  ])('when %s %j goes through a link, then it is refused where it leads (%s)', (tool, input, hit) => {
    expect(check(tool, input)).toContain(hit);
  });

  it("when a Bash shell call runs in a folder that leads into recap's files, then it is refused", () => {
    const call = { ...claudeToolCall('Bash', { command: 'ls' }), dir: 'cfg' };
    expect(protectionRefusal(call, CWD, LINKED, RECAP_PATHS)).toMatch(/runs inside recap's own files/);
  });

  it('when the way out reads its summary through a link into the data folder, then it is refused', () => {
    expect(check('Bash', { command: `${LAUNCHER} submit --file r${DATA}/recapd.log` })).toMatch(/would read recap's own files/);
  });

  it.each([
    ['Write', { file_path: 'pkg/node_modules/yargs/index.cjs', content: '' }],
    ['Edit', { file_path: 'pkg/package.json', old_string: 'a', new_string: 'b' }],
    ['Bash', { command: "sed -i 's/a/b/' pkg/package.json" }],
  ])('when %s %j writes into the package through a link, then it is refused as a change to the setup', (tool, input) => {
    expect(check(tool, input)).toMatch(/could change what wires recap in|would change what wires recap in/);
  });

  it.each([
    ['Read', { file_path: 'pkg/package.json' }],
    ['Write', { file_path: 'out/notes.md', content: 'x' }],
    ['Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }],
    ['Bash', { command: 'cat pkg/node_modules/yargs/package.json' }],
    ['Bash', { command: 'cp README.md out/' }],
  ])('when %s %j goes nowhere it may not, then it is not refused', (tool, input) => {
    expect(check(tool, input)).toBeUndefined();
  });

  it('when Bash runs a writer inside the package folder, then it is refused; a reader there is not', () => {
    expect(check('Bash', { command: 'npm install left-pad' }, '/opt/recap')).toMatch(/runs inside what wires recap in or runs it \(\/opt\/recap\)/);
    expect(check('Bash', { command: 'npm install left-pad' }, `${PROJECT}/pkg`)).toMatch(/runs inside what wires recap in/);
    expect(check('Bash', { command: 'cat package.json' }, '/opt/recap')).toBeUndefined();
  });

  it('then one follower serves each judged call', () => {
    const before = followers;
    check('Write', { file_path: 'out/a', content: '' });
    expect(followers - before).toBe(1);
  });

  it('without a follower, the same paths are judged as spelled (the link is not known)', () => {
    expect(when('Write', { file_path: `r${USER_CONFIG}`, content: '' })).toBeUndefined();
  });
});
