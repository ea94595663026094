// recap's TOML reader for Codex's config.toml reads what Python's tomllib (a TOML 1.0
// reference) reads, and refuses what it refuses: the installer edits this file by its lines,
// and must never read it differently from Codex.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { isTable, parseToml, TomlError, TomlScalar, type TomlValue } from '../../src/agents/codex/toml.js';

type Reference = { data?: unknown; error?: string };

/** What tomllib makes of each text: its data as JSON, or the error (one Python for them all). */
function tomllib(texts: readonly string[]): Reference[] {
  const script = [
    'import sys, json, tomllib',
    'def read(text):',
    '    try:',
    '        return {"data": tomllib.loads(text)}',
    '    except Exception as e:',
    '        return {"error": str(e)}',
    'print(json.dumps([read(t) for t in json.load(sys.stdin)]))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python3 with tomllib is needed for this test: ${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout) as Reference[];
}

/** recap's data as tomllib's JSON: numbers as numbers. */
function plain(value: TomlValue): unknown {
  if (value instanceof TomlScalar) return Number(value.raw.replaceAll('_', ''));
  if (Array.isArray(value)) return value.map(plain);
  if (isTable(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

const CODEX_CONFIG = `# Codex, as a user keeps it
model = "gpt-5.5"
model_reasoning_effort = "high"   # a comment after a value
notify = ["notify-send", "Codex"]

[sandbox_workspace_write]
network_access = false
writable_roots = [
  "/home/ann/scratch", # scratch space
  '/tmp/literal\\path',
]

[projects."/home/ann/src/app"]
trust_level = "trusted"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "x", "QUOTED KEY" = 'lit', nested = { deep = [1, 2] } }
startup_timeout_ms = 20_000

[profiles.fast]
model = "gpt-5.5-mini"
tools.web_search = true
tools."view image" = false

[[skills.config]]
path = "/a"
enabled = false

[[skills.config]]
path = "/b"

[hooks]
[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{ type = "command", command = "audit", timeout = 5 }]

[hooks.state]

[hooks.state."/home/ann/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:aa"
enabled = true
`;

const STRINGS = `basic = "tab\\there \\u00e9 \\"quoted\\" back\\\\slash"
multi = """
first line
  second \\
    joined"""
quote_at_end = """ends with a quote""""
literal = 'C:\\Users\\ann'
multi_literal = '''
it's ''done'''''
empty = ""
"dotted.key".x = 1
1234 = "a bare key of digits"
a.b.c = 1
a.b.d = -2.5
`;

const VALID = [
  ['a Codex config with every kind of table', CODEX_CONFIG],
  ['strings of every kind, dotted and odd keys', STRINGS],
  ['CRLF line ends', 'a = 1\r\n[t]\r\nb = "x" # c\r\n'],
  ['nothing', ''],
  ['comments only', '# one\n\n   # two\n'],
  ['a super-table after its sub-table', '[a.b]\nx = 1\n[a]\ny = 2\n'],
  ['a sub-table of a table made by dotted keys', '[fruit]\napple.color = "red"\n[fruit.apple.texture]\nsmooth = true\n'],
  ['no newline at the end', 'a = 1'],
] as const;

const INVALID = [
  ['a table defined twice', '[a]\n[a]\n'],
  ['a key defined twice', 'a = 1\na = 2\n'],
  ['a table added to an inline table', 'a = { b = 1 }\n[a.c]\n'],
  ['a dotted key added to an inline table', 'a = { b = 1 }\na.c = 2\n'],
  ['a header over a table made by dotted keys', '[fruit]\napple.color = "red"\n[fruit.apple]\n'],
  ['a header over a value', 'a = 1\n[a]\n'],
  ['an array of tables over an array', 'a = []\n[[a]]\n'],
  ['a string not closed', 'a = "x\n'],
  ['a multi-line string not closed', 'a = """x\n'],
  ['two statements on a line', 'a = 1 b = 2\n'],
  ['an unknown escape', 'a = "\\q"\n'],
  ['a header not closed', '[a\n'],
  ['a key without a value', 'a =\n'],
] as const;

describe('reading a config.toml', () => {
  let references: Map<string, Reference>;
  beforeAll(() => {
    const texts = [...VALID, ...INVALID].map(([, text]) => text);
    references = new Map(tomllib(texts).map((r, i) => [texts[i]!, r]));
  });

  it.each(VALID)('reads %s as tomllib does', (_what, text) => {
    const reference = references.get(text)!;
    expect(reference.error).toBeUndefined();
    expect(plain(parseToml(text).data)).toEqual(reference.data);
  });

  it('keeps a date and time as written', () => {
    expect(parseToml('when = 1979-05-27 07:32:00Z\n').data.when).toEqual(new TomlScalar('1979-05-27 07:32:00Z'));
  });

  it('finds each header and key/value line, from its line start to past its newline', () => {
    const text = 'a = 1\n  [t] # c\nb = """x\ny"""\n';
    const { statements } = parseToml(text);
    expect(statements.map((s) => text.slice(s.start, s.end))).toEqual(['a = 1\n', '  [t] # c\n', 'b = """x\ny"""\n']);
    const header = statements[1]!;
    expect(header.kind === 'header' && text.slice(header.bracket.start, header.bracket.end)).toBe('[t]');
    expect(statements[2]).toMatchObject({ kind: 'pair', table: ['t'], key: ['b'], value: 'x\ny' });
  });

  it.each(INVALID)('refuses %s, as tomllib does', (_what, text) => {
    expect(references.get(text)!.error).toBeDefined();
    expect(() => parseToml(text)).toThrow(TomlError);
  });

  it('says on which line it stopped', () => {
    expect(() => parseToml('a = 1\n\n[a]\n')).toThrow(/^line 3: /);
  });

  it('keeps a key named __proto__ as a key', () => {
    const { data } = parseToml('[t]\n__proto__ = 1\n');
    expect(Object.keys(data.t as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(data.t)).toBe(Object.prototype);
  });
});
