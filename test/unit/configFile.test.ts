import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigFile, type ParsedConfigFile } from '../../src/common/configFile.js';
import { ConfigService } from '../../src/daemon/configService.js';
import { checkConfigFiles, combine, readLayer } from '../../src/common/configLayers.js';
import { DEFAULT_CONFIG } from '../../src/events/config.js';

type Env = Record<string, string | undefined>;

function parse(text: string, env: Env = {}): ParsedConfigFile {
  return parseConfigFile(text, env);
}

/** The value of one key, failing the test when the file had errors. */
function value(text: string, key: string, env: Env = {}): string | string[] | undefined {
  const parsed = parse(text, env);
  expect(parsed.errors).toEqual([]);
  return parsed.assignments.get(key)?.value;
}

describe('parseConfigFile', () => {
  describe('plain assignments', () => {
    it('given KEY=value lines, when parsed, then each key has its value and line', () => {
      const parsed = parse('TOKEN_THRESHOLD=500\nJOB_SCOPE=session\n');
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('TOKEN_THRESHOLD')).toEqual({ value: '500', line: 1, fromEnv: false });
      expect(parsed.assignments.get('JOB_SCOPE')).toEqual({ value: 'session', line: 2, fromEnv: false });
    });

    it('given single quotes, when parsed, then the text is literal (no expansion)', () => {
      expect(value("A='hello $HOME ${X:-1} world'", 'A', { HOME: '/h' })).toBe('hello $HOME ${X:-1} world');
    });

    it('given double quotes, when parsed, then spaces are kept and escapes removed', () => {
      expect(value('A="Questions & Decisions"', 'A')).toBe('Questions & Decisions');
      expect(value('A="say \\"hi\\" \\$5 \\\\ \\n"', 'A')).toBe('say "hi" $5 \\ \\n');
    });

    it('given quoted pieces next to each other, when parsed, then they join into one word', () => {
      expect(value(`A=one"two"'three'four`, 'A')).toBe('onetwothreefour');
    });

    it('given an empty value, when parsed, then the value is the empty string', () => {
      expect(value('A=', 'A')).toBe('');
      expect(value('A=""', 'A')).toBe('');
      expect(value("A=''", 'A')).toBe('');
    });

    it('given export KEY=1, when parsed, then export is accepted', () => {
      expect(value('export KEY=1', 'KEY')).toBe('1');
      expect(value('export   KEY="2"', 'KEY')).toBe('2');
    });

    it('given leading and trailing blanks around the line, when parsed, then they are ignored', () => {
      expect(value('   TOKEN_THRESHOLD=7   \t', 'TOKEN_THRESHOLD')).toBe('7');
    });

    it('given the same key twice, when parsed, then the later line wins', () => {
      const parsed = parse('A=1\nA=2\n');
      expect(parsed.assignments.get('A')).toEqual({ value: '2', line: 2, fromEnv: false });
    });

    it('given CRLF line endings, when parsed, then values carry no carriage return', () => {
      const parsed = parse('A=1\r\nB="two"\r\n');
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('A')?.value).toBe('1');
      expect(parsed.assignments.get('B')).toEqual({ value: 'two', line: 2, fromEnv: false });
    });
  });

  describe('comments and blank lines', () => {
    it('given comments and blank lines, when parsed, then they are skipped and line numbers still count them', () => {
      const text = ['# recap config', '', '   # indented comment', 'A=1', '', 'B=2'].join('\n');
      const parsed = parse(text);
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('A')?.line).toBe(4);
      expect(parsed.assignments.get('B')?.line).toBe(6);
      expect([...parsed.assignments.keys()]).toEqual(['A', 'B']);
    });

    it('given an inline comment after a value, when parsed, then the comment is not part of the value', () => {
      expect(value('A=500 # the threshold', 'A')).toBe('500');
      expect(value('A="a b"   # quoted', 'A')).toBe('a b');
      expect(value("A='x'\t# tab", 'A')).toBe('x');
    });

    it('given # inside a word or inside quotes, when parsed, then it is part of the value as in bash', () => {
      expect(value('A=abc#def', 'A')).toBe('abc#def');
      expect(value('A="# not a comment"', 'A')).toBe('# not a comment');
      expect(value("A='[PLUGIN-LOCK] #1'", 'A')).toBe('[PLUGIN-LOCK] #1');
    });
  });

  describe('parameter expansion', () => {
    const text = 'TOKEN_THRESHOLD="${TOKEN_THRESHOLD:-500}"';

    it('given KEY="${KEY:-500}" and KEY set in the environment, when parsed, then the environment wins and fromEnv is set', () => {
      const parsed = parse(text, { TOKEN_THRESHOLD: '750' });
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('TOKEN_THRESHOLD')).toEqual({ value: '750', line: 1, fromEnv: true });
    });

    it('given KEY="${KEY:-500}" and KEY unset, when parsed, then the default applies and fromEnv is false', () => {
      expect(parse(text, {}).assignments.get('TOKEN_THRESHOLD')).toEqual({ value: '500', line: 1, fromEnv: false });
    });

    it('given KEY="${KEY:-500}" and KEY set but empty, when parsed, then the default applies and fromEnv is false', () => {
      expect(parse(text, { TOKEN_THRESHOLD: '' }).assignments.get('TOKEN_THRESHOLD')).toEqual({ value: '500', line: 1, fromEnv: false });
    });

    it('given the unquoted form KEY=${KEY:-500}, when parsed, then it behaves the same', () => {
      expect(parse('K=${K:-500}', { K: '9' }).assignments.get('K')).toEqual({ value: '9', line: 1, fromEnv: true });
      expect(parse('K=${K:-500}', {}).assignments.get('K')).toEqual({ value: '500', line: 1, fromEnv: false });
    });

    it('given ${KEY-500} and KEY set but empty, when parsed, then the empty value wins (only unset takes the default)', () => {
      expect(parse('K="${K-500}"', { K: '' }).assignments.get('K')).toEqual({ value: '', line: 1, fromEnv: true });
    });

    it('given ${KEY-500} and KEY unset, when parsed, then the default applies', () => {
      expect(parse('K="${K-500}"', {}).assignments.get('K')).toEqual({ value: '500', line: 1, fromEnv: false });
    });

    it('given ${KEY-500} and KEY set, when parsed, then the environment wins', () => {
      expect(parse('K="${K-500}"', { K: '42' }).assignments.get('K')).toEqual({ value: '42', line: 1, fromEnv: true });
    });

    it('given a default with spaces and quotes, when parsed, then the default keeps them', () => {
      expect(value('A="${A:-two words}"', 'A')).toBe('two words');
      expect(value(`A=\${A:-'x y'}`, 'A')).toBe('x y');
    });

    it('given $VAR and ${VAR}, when parsed, then they expand from the environment', () => {
      const env = { NAME: 'recap', DIR: '/srv' };
      const parsed = parse('A=$NAME\nB="${DIR}/x"\nC="pre-${NAME}-post $DIR"', env);
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('A')).toEqual({ value: 'recap', line: 1, fromEnv: true });
      expect(parsed.assignments.get('B')).toEqual({ value: '/srv/x', line: 2, fromEnv: true });
      expect(parsed.assignments.get('C')?.value).toBe('pre-recap-post /srv');
    });

    it('given $VAR that is unset, when parsed, then it expands to the empty string', () => {
      expect(parse('A="[$MISSING]"', {}).assignments.get('A')).toEqual({ value: '[]', line: 1, fromEnv: false });
    });

    it('given a variable set earlier in the file, when expanded, then the file value is used before the environment', () => {
      const parsed = parse('BASE=100\nA="${BASE}0"\nB="${BASE:-7}"', { BASE: 'env' });
      expect(parsed.assignments.get('A')).toEqual({ value: '1000', line: 2, fromEnv: false });
      expect(parsed.assignments.get('B')).toEqual({ value: '100', line: 3, fromEnv: false });
    });

    it('given a lone $ or a $ before a non-name, when parsed, then it is literal', () => {
      expect(value('A="cost: $5"', 'A')).toBe('cost: $5');
      expect(value('A=$', 'A')).toBe('$');
    });
  });

  describe('bash arrays', () => {
    it('given KEY=("a b" "c" d) on one line, when parsed, then it is a list of three words', () => {
      const parsed = parse('REQUIRED_SECTIONS=("a b" "c" d)');
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('REQUIRED_SECTIONS')).toEqual({ value: ['a b', 'c', 'd'], line: 1, fromEnv: false });
    });

    it('given an array spread over several lines with comments inside, when parsed, then the words are collected and later lines keep their numbers', () => {
      const text = [
        '# sections', //                    1
        'REQUIRED_SECTIONS=(', //           2
        '  "User Requests"   # first', //   3
        '  # a whole-line comment (with parens)', // 4
        "  'Design Choices'", //            5
        '  Current\\ State', //             6
        ')', //                             7
        'TOKEN_THRESHOLD=300', //           8
      ].join('\n');
      const parsed = parse(text);
      expect(parsed.errors).toEqual([]);
      expect(parsed.assignments.get('REQUIRED_SECTIONS')).toEqual({
        value: ['User Requests', 'Design Choices', 'Current State'],
        line: 2,
        fromEnv: false,
      });
      expect(parsed.assignments.get('TOKEN_THRESHOLD')).toEqual({ value: '300', line: 8, fromEnv: false });
    });

    it('given an array whose first word is on the opening line and the ) after the last word, when parsed, then it is read', () => {
      expect(value('COUNT_KINDS=(prompt\n  qa\n  assistant)\n', 'COUNT_KINDS')).toEqual(['prompt', 'qa', 'assistant']);
    });

    it('given an empty array KEY=(), when parsed, then the value is an empty list', () => {
      expect(value('BYPASS_PREFIXES=()', 'BYPASS_PREFIXES')).toEqual([]);
      expect(value('BYPASS_PREFIXES=(  )  # none', 'BYPASS_PREFIXES')).toEqual([]);
    });

    it('given expansions inside an array, when parsed, then they expand and fromEnv is set', () => {
      const parsed = parse('K=("$A" "${B:-bee}" c)', { A: 'ay' });
      expect(parsed.assignments.get('K')).toEqual({ value: ['ay', 'bee', 'c'], line: 1, fromEnv: true });
    });

    it('given an inline comment after the closing parenthesis, when parsed, then it is fine', () => {
      expect(value('K=("a" "b") # two', 'K')).toEqual(['a', 'b']);
    });
  });

  describe('errors carry the line and the key', () => {
    it('given an unterminated double quote, when parsed, then the error names its line and key', () => {
      const parsed = parse('A=1\n\nB="open\nC=3');
      expect(parsed.errors).toEqual([{ line: 3, key: 'B', reason: 'unterminated double quote' }]);
      expect(parsed.assignments.has('B')).toBe(false);
      expect(parsed.assignments.get('C')?.line).toBe(4);
    });

    it('given an unterminated single quote, when parsed, then the error names its line and key', () => {
      expect(parse("# c\nA='open").errors).toEqual([{ line: 2, key: 'A', reason: 'unterminated single quote' }]);
    });

    it.each([
      ['A=$(rm -rf ~)', 'unquoted $(...)'],
      ['A="$(touch /tmp/x)"', 'quoted $(...)'],
      ['A=`touch /tmp/x`', 'unquoted backticks'],
      ['A="`touch /tmp/x`"', 'quoted backticks'],
      ['A=("a" "$(id)")', '$(...) in an array'],
      ['A=${B:-$(id)}', '$(...) in a default'],
    ])('given %j (%s), when parsed, then it is reported and never run', (line) => {
      const parsed = parse(`# first\n${line}`);
      expect(parsed.errors).toHaveLength(1);
      expect(parsed.errors[0]).toMatchObject({ line: 2, key: 'A' });
      expect(parsed.errors[0]!.reason).toMatch(/never run/);
      expect(parsed.assignments.has('A')).toBe(false);
    });

    it('given a command substitution that would create a file, when parsed, then no file appears', () => {
      const dir = mkdtempSync(join(tmpdir(), 'recap-cmd-'));
      try {
        const target = join(dir, 'ran');
        parse(`A=$(touch ${target})\nB=\`touch ${target}\``);
        expect(() => rmSync(target)).toThrow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("given the garbage line 'this is not config', when parsed, then the error has its line number and no key", () => {
      const parsed = parse('A=1\n# note\n\nthis is not config\nB=2');
      expect(parsed.errors).toEqual([{ line: 4, reason: 'expected KEY=value, KEY=("a" "b") or a # comment' }]);
      expect(parsed.assignments.get('B')?.line).toBe(5);
    });

    it.each(['KEY = 1', 'KEY =1', '1KEY=1', 'KEY+=1', 'readonly KEY=1'])('given %j, when parsed, then it is not an assignment', (line) => {
      expect(parse(line).errors).toEqual([{ line: 1, reason: 'expected KEY=value, KEY=("a" "b") or a # comment' }]);
    });

    it('given text after a closing parenthesis, when parsed, then the error names the line and key', () => {
      const parsed = parse('A=1\nK=("a" "b") extra');
      expect(parsed.errors).toEqual([{ line: 2, key: 'K', reason: 'unexpected text after the array' }]);
    });

    it('given text after a closing parenthesis of a multi-line array, when parsed, then the error names the opening line', () => {
      const parsed = parse('K=(\n"a"\n) extra');
      expect(parsed.errors).toEqual([{ line: 1, key: 'K', reason: 'unexpected text after the array' }]);
    });

    it('given a bad array followed by more lines, when parsed, then the following lines are still read', () => {
      const parsed = parse('K=("a" `id`)\nTOKEN_THRESHOLD=abc\nnonsense here\nB=2');
      expect(parsed.errors.map((e) => e.line)).toEqual([1, 3]);
      expect(parsed.assignments.get('B')?.line).toBe(4);
    });

    it('given text after the ) of a multi-line array, when parsed, then the next assignment is still read', () => {
      const parsed = parse('K=(\n"a"\n) extra\nB=2');
      expect(parsed.assignments.get('B')?.line).toBe(4);
    });

    it('given an unquoted value with a space, when parsed, then it asks for quotes', () => {
      const parsed = parse('A=two words');
      expect(parsed.errors).toHaveLength(1);
      expect(parsed.errors[0]).toMatchObject({ line: 1, key: 'A' });
      expect(parsed.errors[0]!.reason).toMatch(/quote values that contain spaces/);
    });

    it('given a semicolon or a stray parenthesis, when parsed, then it is an error', () => {
      expect(parse('A=1; B=2').errors[0]).toMatchObject({ line: 1, key: 'A' });
      expect(parse('A=x(y)').errors[0]).toMatchObject({ line: 1, key: 'A' });
    });

    it('given an array that is never closed, when parsed, then the error names its opening line', () => {
      expect(parse('A=1\nK=("a"\n"b"').errors).toEqual([{ line: 2, key: 'K', reason: 'the array is not closed with )' }]);
    });

    it('given an unsupported or unclosed ${...}, when parsed, then it is an error', () => {
      expect(parse('A="${B:=1}"').errors[0]).toMatchObject({ line: 1, key: 'A' });
      expect(parse('A="${B:-1"').errors[0]).toMatchObject({ line: 1, key: 'A' });
    });

    it('given several bad lines, when parsed, then every one is reported with its own line', () => {
      const parsed = parse(['A="x', 'nonsense here', 'B=$(id)', 'C=ok'].join('\n'));
      expect(parsed.errors.map((e) => [e.line, e.key])).toEqual([
        [1, 'A'],
        [2, undefined],
        [3, 'B'],
      ]);
      expect(parsed.assignments.get('C')?.value).toBe('ok');
    });
  });
});

describe('readLayer and combine', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recap-config-'));
    file = join(dir, 'config.conf');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function layerOf(text: string, env: Env = {}) {
    writeFileSync(file, text);
    const read = readLayer(file, env);
    if (!read.ok) throw new Error(`expected a good layer, got ${read.problems.join('; ')}`);
    return read.layer;
  }

  function problemsOf(text: string, env: Env = {}): string[] {
    writeFileSync(file, text);
    const read = readLayer(file, env);
    if (read.ok) throw new Error('expected problems');
    return read.problems;
  }

  it('given a missing file, when read, then it is an empty layer and combine gives the defaults', () => {
    const read = readLayer(join(dir, 'nope.conf'), {});
    expect(read).toEqual({ ok: true, layer: { values: {}, sources: {} } });
    const combined = combine([read.ok ? read.layer : { values: {}, sources: {} }]);
    expect(combined.ok).toBe(true);
    if (combined.ok) {
      expect(combined.effective.config).toEqual(DEFAULT_CONFIG);
      expect(Object.values(combined.effective.sources).every((s) => s === 'default')).toBe(true);
    }
  });

  it('given a good file, when read and combined, then values are typed and sources are file:line', () => {
    const layer = layerOf(
      ['# mine', 'TOKEN_THRESHOLD=300', 'REQUIRED_SECTIONS=("A" "B")', 'TOKEN_WORD_RATIO=1.5', 'TOKEN_ENCODING=words', 'BYPASS_PREFIXES="[PLUGIN-LOCK]"'].join('\n'),
    );
    expect(layer.values).toEqual({
      TOKEN_THRESHOLD: 300,
      REQUIRED_SECTIONS: ['A', 'B'],
      TOKEN_WORD_RATIO: 1.5,
      TOKEN_ENCODING: 'words',
      BYPASS_PREFIXES: ['[PLUGIN-LOCK]'],
    });
    expect(layer.sources).toEqual({
      TOKEN_THRESHOLD: `${file}:2`,
      REQUIRED_SECTIONS: `${file}:3`,
      TOKEN_WORD_RATIO: `${file}:4`,
      TOKEN_ENCODING: `${file}:5`,
      BYPASS_PREFIXES: `${file}:6`,
    });
    const combined = combine([layer]);
    expect(combined.ok).toBe(true);
    if (!combined.ok) return;
    expect(combined.effective.config).toEqual({
      ...DEFAULT_CONFIG,
      TOKEN_THRESHOLD: 300,
      REQUIRED_SECTIONS: ['A', 'B'],
      TOKEN_WORD_RATIO: 1.5,
      TOKEN_ENCODING: 'words',
      BYPASS_PREFIXES: ['[PLUGIN-LOCK]'],
    });
    expect(combined.effective.sources.TOKEN_THRESHOLD).toBe(`${file}:2`);
    expect(combined.effective.sources.SUMMARY_MAX_TOKENS).toBe('default');
  });

  it('given a value taken from the environment, when read, then its source names the variable and file:line', () => {
    const layer = layerOf('\nTOKEN_THRESHOLD="${TOKEN_THRESHOLD:-500}"', { TOKEN_THRESHOLD: '900' });
    expect(layer.values.TOKEN_THRESHOLD).toBe(900);
    expect(layer.sources.TOKEN_THRESHOLD).toBe(`env TOKEN_THRESHOLD via ${file}:2`);
    const fallback = layerOf('\nTOKEN_THRESHOLD="${TOKEN_THRESHOLD:-500}"', {});
    expect(fallback.values.TOKEN_THRESHOLD).toBe(500);
    expect(fallback.sources.TOKEN_THRESHOLD).toBe(`${file}:2`);
  });

  it('given an unknown key, when read, then the problem names the file, :LINE: and the key', () => {
    const problems = problemsOf('TOKEN_THRESHOLD=300\n\nTOKEN_TRESHOLD=400\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${file}:3:`);
    expect(problems[0]).toContain('TOKEN_TRESHOLD');
    expect(problems[0]).toMatch(/unknown key/);
  });

  it("given 'TOKEN_THRESHOLD=abc', when read, then the problem says what the key allows and what it got", () => {
    const problems = problemsOf('# c\nTOKEN_THRESHOLD=abc');
    expect(problems).toEqual([`${file}:2: TOKEN_THRESHOLD: must be a whole number, 1 or more; got "abc"`]);
  });

  it('given an empty number, when read, then it must be a number', () => {
    expect(problemsOf('SUMMARY_MIN_TOKENS=')[0]).toMatch(/SUMMARY_MIN_TOKENS: must be a whole number, 1 or more; got ""/);
  });

  it('given a list for a single-valued key, when read, then it is a problem', () => {
    expect(problemsOf('TOKEN_THRESHOLD=(1 2)')).toEqual([`${file}:1: TOKEN_THRESHOLD: takes one value, not a list; it must be a whole number, 1 or more`]);
  });

  it('given a syntax error, when read, then the problem names file:line: and the key', () => {
    expect(problemsOf('TOKEN_THRESHOLD=1\nJOB_SCOPE="session')).toEqual([`${file}:2: JOB_SCOPE: unterminated double quote`]);
    expect(problemsOf('this is not config')).toEqual([`${file}:1: expected KEY=value, KEY=("a" "b") or a # comment`]);
  });

  it('given TOKEN_THRESHOLD=0, when read, then the out-of-range problem names file:line, the key and the values it allows', () => {
    expect(problemsOf('\n\nTOKEN_THRESHOLD=0\n')).toEqual([`${file}:3: TOKEN_THRESHOLD: must be a whole number, 1 or more; got 0`]);
  });

  it("given SYNC_START_WAIT over 2000, when read, then it is a problem naming the range (a longer wait outlasts the hook launcher's deadline)", () => {
    expect(layerOf('SYNC_START_WAIT=2000')).toMatchObject({ values: { SYNC_START_WAIT: 2000 } });
    expect(problemsOf('SYNC_START_WAIT=5000')).toEqual([`${file}:1: SYNC_START_WAIT: must be a whole number from 0 to 2000; got 5000`]);
  });

  it('given a fractional threshold, when read, then it is a problem', () => {
    expect(problemsOf('TOKEN_THRESHOLD=2.5')).toEqual([`${file}:1: TOKEN_THRESHOLD: must be a whole number, 1 or more; got 2.5`]);
  });

  it('given SUMMARY_MIN_TOKENS greater than SUMMARY_MAX_TOKENS, when combined, then it is a problem naming the file and both values', () => {
    const combined = combine([layerOf('SUMMARY_MIN_TOKENS=800\nSUMMARY_MAX_TOKENS=300\n')]);
    expect(combined.ok).toBe(false);
    if (combined.ok) return;
    expect(combined.problems).toEqual([`${file}:1: SUMMARY_MIN_TOKENS: SUMMARY_MIN_TOKENS (800) must not exceed SUMMARY_MAX_TOKENS (300)`]);
  });

  it('given only SUMMARY_MAX_TOKENS below the default minimum, when combined, then the problem names file:line and SUMMARY_MAX_TOKENS', () => {
    const combined = combine([layerOf('# band\nSUMMARY_MAX_TOKENS=100\n')]);
    expect(combined.ok).toBe(false);
    if (combined.ok) return;
    expect(combined.problems).toEqual([`${file}:2: SUMMARY_MAX_TOKENS: SUMMARY_MIN_TOKENS (200) must not exceed SUMMARY_MAX_TOKENS (100)`]);
  });

  it('given TOKEN_ENCODING=bogus, when read, then the problem lists the encodings allowed', () => {
    expect(problemsOf('# enc\nTOKEN_ENCODING=bogus')).toEqual([`${file}:2: TOKEN_ENCODING: must be one of o200k_base, cl100k_base, words; got "bogus"`]);
  });

  it('given an empty REQUIRED_SECTIONS, a bad COUNT_KINDS word and an unknown scope, when read, then each is a problem, in one round', () => {
    expect(problemsOf('REQUIRED_SECTIONS=()\nCOUNT_KINDS=(prompt "Not A Kind")\nJOB_SCOPE=team')).toEqual([
      `${file}:1: REQUIRED_SECTIONS: must be a list of words, at least one, as KEY=("a" "b"); got ()`,
      `${file}:2: COUNT_KINDS: must be a list of lower-case words, as KEY=("a" "b"); got ("prompt" "Not A Kind")`,
      `${file}:3: JOB_SCOPE: must be one of project, session; got "team"`,
    ]);
  });

  it("given a file with a mistake of every kind, when checked, then every problem comes at once, in line order, in recap's words", () => {
    writeFileSync(file, ['TOKEN_THRESHOLD=0', 'this is not config', 'TOKEN_TRESHOLD=400', 'ON_DAEMON_DOWN=maybe', 'CONTEXT_BUDGET=lots', 'TRIGGER_CONTEXT_PERCENT=150'].join('\n'));
    const problems = checkConfigFiles([file], {});
    expect(problems).toHaveLength(6);
    expect(problems.map((p) => p.slice(file.length).split(':')[1])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(problems[5]).toBe(`${file}:6: TRIGGER_CONTEXT_PERCENT: must be a whole number from 0 to 100; got 150`);
    expect(problems.join('\n')).not.toMatch(/Too (small|big)|Invalid|expected (number|string)/);
  });

  it("given a band whose ends two files set, when checked, then the problem is found with the files' own", () => {
    const projectFile = join(dir, 'project.conf');
    writeFileSync(file, 'SUMMARY_MIN_TOKENS=800\nJOB_SCOPE=team');
    writeFileSync(projectFile, '\nSUMMARY_MAX_TOKENS=300');
    expect(checkConfigFiles([file, projectFile], {})).toEqual([
      `${file}:2: JOB_SCOPE: must be one of project, session; got "team"`,
      `${file}:1: SUMMARY_MIN_TOKENS: SUMMARY_MIN_TOKENS (800) must not exceed SUMMARY_MAX_TOKENS (300)`,
    ]);
  });

  it('given two layers, when combined, then the later layer overrides and its sources win', () => {
    const user = layerOf('TOKEN_THRESHOLD=300\nJOB_SCOPE=session');
    const projectFile = join(dir, 'project.conf');
    writeFileSync(projectFile, '\nTOKEN_THRESHOLD=100');
    const project = readLayer(projectFile, {});
    expect(project.ok).toBe(true);
    if (!project.ok) return;
    const combined = combine([user, project.layer]);
    expect(combined.ok).toBe(true);
    if (!combined.ok) return;
    expect(combined.effective.config.TOKEN_THRESHOLD).toBe(100);
    expect(combined.effective.config.JOB_SCOPE).toBe('session');
    expect(combined.effective.sources.TOKEN_THRESHOLD).toBe(`${projectFile}:2`);
    expect(combined.effective.sources.JOB_SCOPE).toBe(`${file}:2`);
  });
});

describe('ConfigService', () => {
  let dir: string;
  let userFile: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recap-service-'));
    userFile = join(dir, 'user', 'config.conf');
    mkdirSync(join(dir, 'user'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const recorded = { ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 321, JOB_SCOPE: 'session' as const };

  it('given no user file, when constructed, then the defaults are in force and there are no problems', () => {
    const service = new ConfigService(userFile, {});
    expect(service.problems).toEqual([]);
    expect(service.user().config).toEqual(DEFAULT_CONFIG);
  });

  it('given a bad user file and a recorded last-good config, when constructed, then the recorded values are in force and the problems are reported', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=abc\n');
    const service = new ConfigService(userFile, {}, recorded);
    expect(service.user().config).toEqual(recorded);
    expect(service.problems.length).toBeGreaterThan(0);
    expect(service.problems[0]).toContain(`${userFile}:1: TOKEN_THRESHOLD`);
  });

  it('given an out-of-range user file and a recorded config, when constructed, then the recorded values stay in force', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=0\n');
    const service = new ConfigService(userFile, {}, recorded);
    expect(service.user().config).toEqual(recorded);
    expect(service.problems).toHaveLength(1);
    expect(service.problems[0]).toContain(`${userFile}:1: TOKEN_THRESHOLD`);
  });

  it('given a bad file then fixed then broken again, when reloaded each time, then the last good values stay in force', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=abc\n');
    const service = new ConfigService(userFile, {}, recorded);
    expect(service.user().config).toEqual(recorded);
    expect(service.problems).not.toEqual([]);

    writeFileSync(userFile, 'TOKEN_THRESHOLD=777\nSUMMARY_MAX_TOKENS=2000\n');
    expect(service.reload()).toEqual([]);
    expect(service.problems).toEqual([]);
    expect(service.user().config).toEqual({ ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 777, SUMMARY_MAX_TOKENS: 2000 });
    expect(service.user().sources.TOKEN_THRESHOLD).toBe(`${userFile}:1`);

    writeFileSync(userFile, 'TOKEN_THRESHOLD=777\nSUMMARY_MAX_TOKENS=2000\nUNKNOWN_THING=1\n');
    const problems = service.reload();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${userFile}:3: UNKNOWN_THING`);
    expect(service.problems).toEqual(problems);
    expect(service.user().config).toEqual({ ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 777, SUMMARY_MAX_TOKENS: 2000 });

    writeFileSync(userFile, 'TOKEN_THRESHOLD=0\n');
    expect(service.reload()).toHaveLength(1);
    expect(service.user().config.TOKEN_THRESHOLD).toBe(777);
  });

  it('given a project file at <dir>/.recap/config.conf, when forProject(dir), then it overrides the user file', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=300\nJOB_SCOPE=session\n');
    const project = join(dir, 'project');
    mkdirSync(join(project, '.recap'), { recursive: true });
    const projectFile = join(project, '.recap', 'config.conf');
    writeFileSync(projectFile, '# project\nTOKEN_THRESHOLD=50\n');
    const service = new ConfigService(userFile, {});
    const effective = service.forProject(project);
    expect(effective.config.TOKEN_THRESHOLD).toBe(50);
    expect(effective.config.JOB_SCOPE).toBe('session');
    expect(effective.sources.TOKEN_THRESHOLD).toBe(`${projectFile}:2`);
    expect(effective.sources.JOB_SCOPE).toBe(`${userFile}:2`);
    expect(service.user().config.TOKEN_THRESHOLD).toBe(300);
    expect(service.forProject(undefined).config.TOKEN_THRESHOLD).toBe(300);
    expect(service.forProject(join(dir, 'elsewhere')).config.TOKEN_THRESHOLD).toBe(300);
    expect(service.problems).toEqual([]);
  });

  it('given a project file that becomes bad, when reloaded, then the previous project values stay and the problem names the project file', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=300\n');
    const project = join(dir, 'project');
    mkdirSync(join(project, '.recap'), { recursive: true });
    const projectFile = join(project, '.recap', 'config.conf');
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=50\n');
    const service = new ConfigService(userFile, {});
    expect(service.forProject(project).config.TOKEN_THRESHOLD).toBe(50);

    writeFileSync(projectFile, 'TOKEN_THRESHOLD=-1\n');
    const problems = service.reload();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${projectFile}:1: TOKEN_THRESHOLD`);
    expect(service.forProject(project).config.TOKEN_THRESHOLD).toBe(50);

    // A stricter value applies at once (a weaker one would wait for the user's approval).
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=40\n');
    expect(service.reload()).toEqual([]);
    expect(service.forProject(project).config.TOKEN_THRESHOLD).toBe(40);
  });

  it('given a bad project file from the start, when forProject, then the user values apply and the problem is reported', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=300\n');
    const project = join(dir, 'project');
    mkdirSync(join(project, '.recap'), { recursive: true });
    writeFileSync(join(project, '.recap', 'config.conf'), 'TOKEN_ENCODING=bogus\n');
    const service = new ConfigService(userFile, {});
    expect(service.forProject(project).config).toEqual({ ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 300 });
    expect(service.problems).toHaveLength(1);
    expect(service.problems[0]).toContain(`${join(project, '.recap', 'config.conf')}:1: TOKEN_ENCODING`);
  });

  it('given the environment passed to the service, when a file uses ${KEY:-default}, then the environment wins', () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD="${TOKEN_THRESHOLD:-500}"\n');
    expect(new ConfigService(userFile, { TOKEN_THRESHOLD: '42' }).user().config.TOKEN_THRESHOLD).toBe(42);
    expect(new ConfigService(userFile, {}).user().config.TOKEN_THRESHOLD).toBe(500);
  });
});
