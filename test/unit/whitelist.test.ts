// The gate's Bash whitelist (DESIGN.md, "Claude Code": "While a gate is tripped the only tool
// calls allowed are ..."). While the gate is tripped, a Bash command line may only be exactly
// one recap command that reads state (status, context, chain, show N) or submits a summary
// (quoted here-document or --file). Anything chained onto it or hidden in it is denied.
import { describe, it, expect } from 'vitest';
import { classifyBash, readWayOut } from '../../src/events/whitelist.js';
import { tokenize, type HeredocToken, type WordToken } from '../../src/events/shellTokens.js';

// The only name of recap the gate accepts: the launcher the daemon keeps in its data folder.
const LAUNCHER = '/home/dev/.local/share/recap/bin/recap';
const recapPaths: ReadonlySet<string> = new Set([LAUNCHER]);
/**
 * The corpus writes the command word as `recap` at the start of a line, as a reader would;
 * it stands for the launcher the deny message names. Anything else is kept as written.
 */
const classify = (command: string) => classifyBash(command.replace(/^recap(?=[ \t\n])/, LAUNCHER), recapPaths);

const SUMMARY = '## A\ntext';

describe('classifyBash: the forms a tripped gate lets through', () => {
  it.each([
    ['status', 'recap status', 'status'],
    ['status with a trailing newline', 'recap status\n', 'status'],
    ['status --json', 'recap status --json', 'status'],
    ['status --job', 'recap status --job myjob', 'status'],
    ['status --job=', 'recap status --job=myjob', 'status'],
    ['status --daemon (the daemon, read-only)', 'recap status --daemon --json', 'status'],
    ['context --job', 'recap context --job myjob', 'context'],
    ['context --json --job', 'recap context --json --job myjob', 'context'],
    ['chain', 'recap chain', 'chain'],
    ['chain --json --job=x', 'recap chain --json --job=x', 'chain'],
    ['show N', 'recap show 12', 'show'],
    ['show #N, quoted', "recap show '#12'", 'show'],
    ['show N --json --job', 'recap show 12 --json --job myjob', 'show'],
    ['show with its options first', 'recap show --job=myjob --json 7', 'show'],
    ['tab-separated words', 'recap\tstatus\t--json', 'status'],
    ['single-quoted launcher path', `'${LAUNCHER}' status`, 'status'],
    ['double-quoted launcher path', `"${LAUNCHER}" status`, 'status'],
    ['quoted subcommand', 'recap \'status\' "--json"', 'status'],
    ['the launcher path', `${LAUNCHER} status`, 'status'],
    ['the launcher path, submit', `${LAUNCHER} submit <<'EOF'\n${SUMMARY}\nEOF`, 'submit'],
    ['a single-quoted option value holding metacharacters (literal)', "recap status --job '$(rm -rf /);x'", 'status'],
  ])('given a tripped gate, when the agent runs %s, then it is allowed', (_label, command, subcommand) => {
    expect(classify(command)).toEqual({ allowed: true, subcommand });
  });

  it.each([
    ["<<'EOF'", `recap submit <<'EOF'\n${SUMMARY}\nEOF`],
    ['<<"EOF"', `recap submit <<"EOF"\n${SUMMARY}\nEOF`],
    ["<<-'EOF' with a tab-indented delimiter", `recap submit <<-'EOF'\n\t## A\n\ttext\n\tEOF`],
    ["--json <<'EOF'", `recap submit --json <<'EOF'\n${SUMMARY}\nEOF`],
    ["<<'EOF' with a trailing newline after EOF", `recap submit <<'EOF'\n${SUMMARY}\nEOF\n`],
    ["<<'EOF' with several trailing newlines", `recap submit <<'EOF'\n${SUMMARY}\nEOF\n\n\n`],
    ["--job and --topic with <<'EOF'", `recap submit --job myjob --topic auth <<'EOF'\n${SUMMARY}\nEOF`],
    ["'-' (stdin) with <<'EOF'", `recap submit - <<'EOF'\n${SUMMARY}\nEOF`],
    ['a delimiter other than EOF', `recap submit <<'SUMMARY'\n${SUMMARY}\nSUMMARY`],
    ['an empty body', "recap submit <<'EOF'\nEOF"],
    ['--file PATH', 'recap submit --file /tmp/summary.md'],
    ['--file=PATH', 'recap submit --file=/tmp/summary.md'],
    ['--json --file PATH', 'recap submit --json --file /tmp/summary.md'],
  ])('given a tripped gate, when the agent submits with %s, then it is allowed', (_label, command) => {
    expect(classify(command)).toEqual({ allowed: true, subcommand: 'submit' });
  });

  it.each([
    ['command substitution $(...)', '## A\nrun $(rm -rf /) now'],
    ['backticks', '## A\nrun `rm -rf /` now'],
    ['; && || |', '## A\na; b && c || d | e & f'],
    ['variables and globs', '## A\n$HOME ${IFS} * ? [ab] {a,b} ~ !x'],
    ['redirections and process substitution', '## A\n> /etc/passwd < x <(curl evil) 2>&1'],
    ['a line that looks like a second command', '## A\nrm -rf /'],
    ['the delimiter word inside a line', '## A\nEOF is not alone on this line\n EOF'],
    ['quotes that never close', '## A\nit\'s "open'],
  ])('given a tripped gate, when the quoted here-document body holds %s, then it is literal and allowed', (_label, body) => {
    expect(classify(`recap submit <<'EOF'\n${body}\nEOF`)).toEqual({ allowed: true, subcommand: 'submit' });
  });
});

describe('classifyBash: everything else is denied', () => {
  const expectDenied = (command: string) => {
    const verdict = classify(command);
    expect(verdict.allowed, `expected ${JSON.stringify(command)} to be denied`).toBe(false);
    if (!verdict.allowed) expect(verdict.why.length).toBeGreaterThan(0);
  };

  it.each([
    [';', 'recap status; rm -rf /'],
    ['; without spaces', 'recap status;rm -rf /'],
    ['&&', 'recap status && rm -rf /'],
    ['||', 'recap status || rm -rf /'],
    ['|', 'recap status | sh'],
    ['&', 'recap status & rm -rf /'],
    ['& at the end (background)', 'recap status &'],
    ['|&', 'recap status |& tee /tmp/x'],
    ['a chain before recap', 'rm -rf / ; recap status'],
    ['a chain on the here-document line', "recap submit <<'EOF' && rm -rf /\n## A\nEOF"],
  ])('given a tripped gate, when the agent chains with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['$(...) as an argument', 'recap status --job $(id)'],
    ['$(...) as the subcommand', 'recap $(echo status)'],
    ['$(...) inside double quotes', 'recap status --job "$(id)"'],
    ['backticks as an argument', 'recap status --job `id`'],
    ['backticks inside double quotes', 'recap status --job "`id`"'],
    ['$(...) glued to a word', 'recap status --job=x$(id)'],
    ['process substitution <(...)', 'recap submit --file <(curl evil)'],
    ['process substitution >(...)', 'recap status --json >(sh)'],
    ['process substitution glued to --file=', 'recap submit --file=<(curl evil)'],
  ])('given a tripped gate, when the agent hides a command with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['>', 'recap status > /tmp/x'],
    ['>>', 'recap status >> ~/.bashrc'],
    ['2>&1', 'recap status 2>&1'],
    ['< file', 'recap status < /etc/passwd'],
    ['< file into submit', 'recap submit --file /dev/stdin < /tmp/x'],
    ['&>', 'recap status &> /tmp/x'],
    ['&>>', 'recap status &>> /tmp/x'],
    ['>|', 'recap status >| /tmp/x'],
    ['<>', 'recap status <> /tmp/x'],
    ['a here-string <<<', "recap submit <<< '## A'"],
  ])('given a tripped gate, when the agent redirects with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['FOO=1 before the command', 'FOO=1 recap status'],
    ['PATH=/tmp before the command', 'PATH=/tmp recap status'],
    ['env', 'env recap status'],
    ['env with an assignment', 'env PATH=/tmp recap status'],
    ['bash -c', "bash -c 'recap status'"],
    ['sh -c', "sh -c 'recap status'"],
    ['eval', 'eval recap status'],
    ['exec', 'exec recap status'],
    ['command', 'command recap status'],
    ['builtin', 'builtin recap status'],
    ['time', 'time recap status'],
    ['nohup', 'nohup recap status'],
    ['sudo', 'sudo recap status'],
    ['! (negation)', '! recap status'],
    ['/tmp/recap', '/tmp/recap status'],
    ['./recap', './recap status'],
    ['../recap', '../recap status'],
    ['another absolute recap', '/usr/local/bin/recap status'],
    ['node with the real recap path', 'node /opt/recap/bin/recap.js status'],
    ['a path that only ends like the real one', '/tmp/opt/recap/bin/recap.js status'],
    ['a subshell (recap status)', '(recap status)'],
    ['a brace group { recap status; }', '{ recap status; }'],
    ['a function definition', 'recap() { rm -rf /; }; recap status'],
  ])('given a tripped gate, when the agent wraps recap with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['a Cyrillic а in recаp', 'rec\u0430p status'],
    ['a Cyrillic а inside quotes', "'rec\u0430p' status"],
    ['a zero-width space after recap', 'recap\u200b status'],
    ['a zero-width space inside the subcommand', 'recap sta\u200btus'],
    ['a zero-width joiner inside quotes', "'recap\u200d' status"],
    ['an NBSP between the words', 'recap\u00a0status'],
    ['an NBSP before an option', 'recap status\u00a0--json'],
    ['fullwidth letters', '\uff52\uff45\uff43\uff41\uff50 status'],
    ['a fullwidth semicolon', 'recap status\uff1b rm -rf /'],
    ['a soft hyphen', 're\u00adcap status'],
  ])('given a tripped gate, when the agent uses look-alike characters (%s), then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['a CR', 'recap status\rrm -rf /'],
    ['a CR before a newline-free chain', 'recap status\r; rm -rf /'],
    ['U+2028 (line separator)', 'recap status\u2028rm -rf /'],
    ['U+2029 (paragraph separator)', 'recap status\u2029rm -rf /'],
    ['U+0085 (next line)', 'recap status\u0085rm -rf /'],
    ['a vertical tab', 'recap status\u000brm -rf /'],
    ['a form feed', 'recap status\u000crm -rf /'],
    ['a NUL', 'recap status\u0000rm -rf /'],
    ['a newline then a second command', 'recap status\nrm -rf /'],
    ['a newline then a second recap command', 'recap status\nrecap record'],
    ['CRLF then a second command', 'recap status\r\nrm -rf /'],
  ])('given a tripped gate, when the agent separates commands with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['an unquoted here-document <<EOF', `recap submit <<EOF\n${SUMMARY}\nEOF`],
    ['a backslash-quoted delimiter <<\\EOF (only plain quoted words are accepted)', `recap submit <<\\EOF\n${SUMMARY}\nEOF`],
    ['an unquoted here-document whose body expands', 'recap submit <<EOF\n## A\n$(rm -rf /)\nEOF'],
    ['an unquoted <<-EOF', `recap submit <<-EOF\n${SUMMARY}\n\tEOF`],
    ['a second command after the delimiter', `recap submit <<'EOF'\n${SUMMARY}\nEOF\nrm -rf /`],
    ['a second recap command after the delimiter', `recap submit <<'EOF'\n${SUMMARY}\nEOF\nrecap trip`],
    ['a here-document that is never closed', `recap submit <<'EOF'\n${SUMMARY}`],
    ['a delimiter line with trailing spaces only', `recap submit <<'EOF'\n${SUMMARY}\nEOF  `],
    ['a tab-indented delimiter with plain <<', `recap submit <<'EOF'\n${SUMMARY}\n\tEOF`],
    ['a here-document with no body at all', "recap submit <<'EOF'"],
    ['a here-document operator with no delimiter', 'recap submit <<'],
    ['two here-documents', `recap submit <<'A' <<'B'\n${SUMMARY}\nA\nmore\nB`],
    ['both --file and a here-document', `recap submit --file /tmp/s.md <<'EOF'\n${SUMMARY}\nEOF`],
    ['a here-document on a read-only command', `recap status <<'EOF'\n${SUMMARY}\nEOF`],
    ['a here-document feeding another program', `sh <<'EOF'\nrecap status\nEOF`],
  ])('given a tripped gate, when the agent submits with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['a comment', 'recap status # x'],
    ['a comment with no space', 'recap status #x'],
    ['a glob *', 'recap status *'],
    ['a glob ?', 'recap status --job ?'],
    ['a glob [..]', 'recap status --job [ab]'],
    ['brace expansion', 'recap status --job {a,b}'],
    ['brace expansion of the subcommand', 'recap {status,record}'],
    ['a tilde', 'recap status --job ~'],
    ['a tilde path as the command', '~/recap status'],
    ['$HOME', 'recap status --job $HOME'],
    ['"$HOME" in double quotes', 'recap status --job "$HOME"'],
    ['${IFS} as a separator', 'recap${IFS}status'],
    ['$IFS glued to the subcommand', 'recap status$IFS--json'],
    ["ANSI-C quoting $'...'", "recap $'status'"],
    ['a backslash escape in the command word', 'rec\\ap status'],
    ['an escaped space', 'recap\\ status'],
    ['an escape inside double quotes', 'recap status --job "a\\"b"'],
    ['a line continuation', 'recap status \\\n--json'],
    ['history expansion !', 'recap status --job !!'],
  ])('given a tripped gate, when the agent uses %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['recap record', 'recap record'],
    ['recap daemon', 'recap daemon'],
    ['recap install claude', 'recap install claude'],
    ['recap uninstall claude', 'recap uninstall claude'],
    ['recap trip', 'recap trip'],
    ['recap trip through the real path', '/opt/recap/bin/recap.js trip'],
    ['recap --help', 'recap --help'],
    ['recap alone', 'recap'],
    ['the real path alone', '/opt/recap/bin/recap.js'],
    ['an empty subcommand', "recap ''"],
  ])('given a tripped gate, when the agent runs %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['an unknown option', 'recap status --evil'],
    ['--daemon on another read-only command', 'recap context --daemon'],
    ['a short option', 'recap status -j x'],
    ['a positional argument', 'recap status extra'],
    ['--json with a value', 'recap status --json=1'],
    ['--job with no value', 'recap status --job'],
    ['--job= empty', 'recap status --job='],
    ['--job followed by an option', 'recap context --job --json'],
    ['--job twice', 'recap chain --job a --job b'],
    ['--json twice', 'recap status --json --json'],
    ['--file on a read-only command', 'recap status --file /tmp/x'],
    ['--topic on a read-only command', 'recap chain --topic x'],
    ['an empty quoted argument', "recap status ''"],
    ['-- end of options', 'recap status --'],
  ])('given a tripped gate, when the agent passes %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['no summary source', 'recap submit'],
    ['only --json', 'recap submit --json'],
    ["'-' without a here-document", 'recap submit -'],
    ["'-' twice", `recap submit - - <<'EOF'\n${SUMMARY}\nEOF`],
    ['--file with no value', 'recap submit --file'],
    ['--file= empty', 'recap submit --file='],
    ['--file followed by an option', 'recap submit --file --json'],
    ['--file given twice', 'recap submit --file a.md --file b.md'],
    ['-f (not an option of the whitelist)', 'recap submit -f /tmp/summary.md'],
    ['an unknown option', `recap submit --evil <<'EOF'\n${SUMMARY}\nEOF`],
    ['a positional argument', `recap submit extra <<'EOF'\n${SUMMARY}\nEOF`],
    ['--topic with no value', `recap submit --topic <<'EOF'\n${SUMMARY}\nEOF`],
  ])('given a tripped gate, when the agent runs recap submit with %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });

  it.each([
    ['an empty command', ''],
    ['a whitespace-only command', '   \t  '],
    ['only newlines', '\n\n'],
    ['a lone quoted empty word', "''"],
    ['an unterminated single quote', "recap status --job 'x"],
    ['an unterminated double quote', 'recap status --job "x'],
    ['an unterminated backtick', 'recap status --job `x'],
  ])('given a tripped gate, when the agent sends %s, then it is denied', (_label, command) => {
    expectDenied(command);
  });
});

describe('classifyBash: the deny reason says what is wrong', () => {
  const why = (command: string): string => {
    const verdict = classify(command);
    if (verdict.allowed) throw new Error(`expected ${JSON.stringify(command)} to be denied`);
    return verdict.why;
  };

  it('given a chained command, when it is denied, then the reason names the operator', () => {
    expect(why('recap status && rm -rf /')).toContain('operator &&');
    expect(why('recap status | sh')).toContain('operator |');
  });

  it('given a comment, when it is denied, then the reason names # as an operator', () => {
    expect(why('recap status # x')).toContain('operator #');
  });

  it('given an unquoted here-document, when it is denied, then the reason says to quote the delimiter', () => {
    const reason = why(`recap submit <<EOF\n${SUMMARY}\nEOF`);
    expect(reason).toContain('quote the here-document delimiter');
    expect(reason).toContain("<<'EOF'");
  });

  it('given an unclosed here-document, when it is denied, then the reason names the missing delimiter', () => {
    const reason = why(`recap submit <<'END'\n${SUMMARY}`);
    expect(reason).toContain('not closed');
    expect(reason).toContain('END');
  });

  it('given a look-alike program, when it is denied, then the reason says it is not recap', () => {
    expect(why('/tmp/recap status')).toContain(`name recap as ${LAUNCHER}`);
    expect(why("'rec\u0430p' status")).toContain('not recap');
    expect(why('env recap status')).toContain('"env" is not recap');
  });

  it.each([
    ['bare recap, found on PATH', 'recap status'],
    ['recap on PATH, quoted', "'recap' status"],
    ['a recap in ~/.local/bin, where the agent can write', '/home/dev/.local/bin/recap status'],
    ["the package's own bin, run by a node PATH finds", '/opt/recap/bin/recap.js status'],
    ['a relative path to the launcher', './bin/recap status'],
  ])('given %s as the command word, when it is checked, then it is denied and the reason names the launcher', (_label, command) => {
    const verdict = classifyBash(command, recapPaths);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed ? '' : verdict.why).toContain(`name recap as ${LAUNCHER}`);
  });

  it('given a word the shell would expand, when it is denied, then the reason names the word', () => {
    expect(why('recap status --job $HOME')).toContain('"$HOME" would be expanded');
  });

  it('given a second line, when it is denied, then the reason says only one command is allowed', () => {
    expect(why(`recap submit <<'EOF'\n${SUMMARY}\nEOF\nrm -rf /`)).toContain('only one command');
  });

  it('given a state-changing subcommand, when it is denied, then the reason lists the allowed subcommands', () => {
    const reason = why('recap install claude');
    expect(reason).toContain('recap install is not allowed');
    expect(reason).toContain('submit, status, context, chain, show N, decisions, search QUERY or timeline');
  });

  it('given submit with no summary source, when it is denied, then the reason shows both ways to give one', () => {
    const reason = why('recap submit');
    expect(reason).toContain("recap submit <<'EOF'");
    expect(reason).toContain('--file PATH');
  });

  it('given an unknown option or a missing value, when it is denied, then the reason names the option', () => {
    expect(why('recap status --evil')).toContain('"--evil"');
    expect(why('recap submit --file')).toContain('--file needs a value');
    expect(why('recap submit -f /tmp/s.md')).toContain('"-f"');
  });

  it('given both --file and a here-document, when it is denied, then the reason says not both', () => {
    expect(why(`recap submit --file /tmp/s.md <<'EOF'\n${SUMMARY}\nEOF`)).toContain('not both');
  });

  it('given an empty command, when it is denied, then the reason says it is empty', () => {
    expect(why('')).toContain('empty');
  });
});

// Delimiters bash reads differently from how they look: bash would end the here-document
// earlier and run the lines in between (verified with GNU bash 5.2: each runs `echo PWNED`).
describe('classifyBash: here-document delimiters and inherited names', () => {
  it.each([
    ['a backslash inside a double-quoted delimiter ("E\\$F" is E$F to bash)', 'recap submit <<"E\\$F"\nx\nE$F\necho PWNED\nE\\$F'],
    ["an ANSI-C quoted delimiter ($'EOF' is EOF to bash)", "recap submit <<$'EOF'\nx\nEOF\necho PWNED\n$EOF"],
    ['a locale-quoted delimiter ($"EOF" is EOF to bash)', 'recap submit <<$"EOF"\nx\nEOF\necho PWNED\n$EOF'],
  ])('given a tripped gate, when the agent uses %s to end the here-document early, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });

  // Names every JavaScript object inherits are not subcommands or options.
  it.each([
    ['recap constructor', 'recap constructor'],
    ['recap __proto__', 'recap __proto__'],
    ['recap status toString x', 'recap status toString x'],
    ['recap submit --file a constructor b', 'recap submit --file /tmp/s.md constructor b'],
  ])('given a tripped gate, when the agent runs %s, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });
});

describe('tokenize', () => {
  const words = (input: string): WordToken[] => {
    const result = tokenize(input);
    if (!result.ok) throw new Error(result.error);
    return result.tokens.filter((t): t is WordToken => t.kind === 'word');
  };
  const heredocOf = (input: string): HeredocToken => {
    const result = tokenize(input);
    if (!result.ok) throw new Error(result.error);
    const heredoc = result.tokens.find((t): t is HeredocToken => t.kind === 'heredoc');
    if (!heredoc) throw new Error('no here-document token');
    return heredoc;
  };

  it('given quoted words, when tokenized, then quotes are removed and the words stay literal', () => {
    expect(words(`'recap' "status" --job='my job' a"b"'c'`)).toEqual([
      { kind: 'word', value: 'recap', literal: true },
      { kind: 'word', value: 'status', literal: true },
      { kind: 'word', value: '--job=my job', literal: true },
      { kind: 'word', value: 'abc', literal: true },
    ]);
  });

  it('given expanding words, when tokenized, then they are marked not literal', () => {
    expect(words('$HOME "$x" `id` * ~ a\\b').map((w) => w.literal)).toEqual([false, false, false, false, false, false]);
    expect(words("'$HOME'")).toEqual([{ kind: 'word', value: '$HOME', literal: true }]);
  });

  it('given operators, when tokenized, then the longest operator wins', () => {
    const result = tokenize('a &>> b |& c <<< d');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.tokens.filter((t) => t.kind === 'operator')).toEqual([
      { kind: 'operator', op: '&>>' },
      { kind: 'operator', op: '|&' },
      { kind: 'operator', op: '<<<' },
    ]);
  });

  it('given a quoted here-document, when tokenized, then the body is read and it is terminated', () => {
    expect(heredocOf("cat <<'EOF'\nline 1\n$(x)\nEOF")).toEqual({
      kind: 'heredoc',
      op: '<<',
      delimiter: 'EOF',
      rawDelimiter: "'EOF'",
      quoted: true,
      body: 'line 1\n$(x)',
      terminated: true,
    });
  });

  it('given <<- with tab-indented lines, when tokenized, then leading tabs are stripped', () => {
    const heredoc = heredocOf('cat <<-"END"\n\tone\n\t\ttwo\n\tEND');
    expect(heredoc).toMatchObject({ op: '<<-', delimiter: 'END', quoted: true, body: 'one\ntwo', terminated: true });
  });

  it('given an unquoted delimiter, when tokenized, then the here-document is marked not quoted', () => {
    expect(heredocOf('cat <<EOF\nx\nEOF')).toMatchObject({ delimiter: 'EOF', quoted: false, terminated: true });
  });

  it('given a here-document with no delimiter line, when tokenized, then it is not terminated', () => {
    expect(heredocOf("cat <<'EOF'\nline 1\nline 2")).toMatchObject({ body: 'line 1\nline 2', terminated: false });
    expect(heredocOf("cat <<'EOF'")).toMatchObject({ body: '', terminated: false });
  });

  it('given text after the delimiter line, when tokenized, then it comes back as tokens', () => {
    const result = tokenize("cat <<'EOF'\nx\nEOF\nrm -rf /");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.tokens.map((t) => t.kind)).toEqual(['word', 'heredoc', 'newline', 'word', 'word', 'word']);
  });

  it('given a comment, when tokenized, then it is reported as the # operator', () => {
    const result = tokenize('recap status # hidden');
    expect(result.ok && result.tokens.at(-1)).toEqual({ kind: 'operator', op: '#' });
  });

  it.each([
    ['single quote', "echo 'abc", 'unterminated single quote'],
    ['double quote', 'echo "abc', 'unterminated double quote'],
    ['backtick', 'echo `abc', 'unterminated backtick'],
  ])('given an unterminated %s, when tokenized, then it is an error', (_label, input, error) => {
    expect(tokenize(input)).toEqual({ ok: false, error });
  });

  it('given a here-document operator with no delimiter, when tokenized, then it is an error', () => {
    expect(tokenize('cat <<')).toEqual({ ok: false, error: 'here-document operator << has no delimiter' });
  });
});

describe('classifyBash: recap decisions, read-only like status, context and chain', () => {
  it.each([
    ['decisions', 'recap decisions'],
    ['decisions --json --job', 'recap decisions --json --job myjob'],
    ['decisions --job=', 'recap decisions --job=myjob'],
  ])('given a tripped gate, when the agent runs %s, then it is allowed', (_label, command) => {
    expect(classify(command)).toEqual({ allowed: true, subcommand: 'decisions' });
  });

  it.each([
    ['; and another command', 'recap decisions; rm x'],
    ['&& another command', 'recap decisions --job other && cat /etc/passwd'],
    ['a pipe into a shell', 'recap decisions | sh'],
    ['a redirection', 'recap decisions > /tmp/x'],
    ['a here-document', "recap decisions <<'EOF'\nx\nEOF"],
    ['a word after it', 'recap decisions 12'],
    ['an option it does not take', 'recap decisions --limit 5'],
    ['--daemon, which only status takes', 'recap decisions --daemon'],
  ])('given a tripped gate, when the agent runs decisions with %s, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });

  it('given decisions through the hook, when it is read to be run there, then its options come with it', () => {
    expect(readWayOut(`${LAUNCHER} decisions --json --job other`, recapPaths)).toEqual({
      subcommand: 'decisions',
      options: new Map<string, string | true>([
        ['--json', true],
        ['--job', 'other'],
      ]),
    });
  });
});

describe('classifyBash: recap show N, read-only like status, context and chain', () => {
  const why = (command: string): string => {
    const verdict = classify(command);
    if (verdict.allowed) throw new Error(`expected ${JSON.stringify(command)} to be denied`);
    return verdict.why;
  };

  it.each([
    ['; and another command', 'recap show 12; rm x'],
    ['--job of another job && another command', 'recap show 12 --job other && cat /etc/passwd'],
    ['a pipe into a shell', 'recap show 12 | sh'],
    ['a redirection', 'recap show 12 > /tmp/x'],
    ['a second line', 'recap show 12\nrm -rf /'],
    ['a command substitution for the number', 'recap show $(id -u)'],
    ['a variable for the number', 'recap show $N'],
    ['a here-document', "recap show 12 <<'EOF'\nx\nEOF"],
    ['an unquoted # (a comment to the shell)', 'recap show #12'],
    ['a comment after it', 'recap show 12 # all of them'],
  ])('given a tripped gate, when the agent runs show N with %s, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });

  it.each([
    ['no number', 'recap show'],
    ['two numbers', 'recap show 12 13'],
    ['a word', 'recap show latest'],
    ['zero', 'recap show 0'],
    ['a negative number', 'recap show -1'],
    ['a fraction', 'recap show 1.5'],
    ['a number with a leading zero', 'recap show 012'],
    ['# alone, quoted', "recap show '#'"],
    ['an option it does not take', 'recap show 12 --event'],
    ['--daemon, which only status takes', 'recap show 12 --daemon'],
    ['--job with no value', 'recap show 12 --job'],
    ['--job given twice', 'recap show 12 --job a --job b'],
  ])('given a tripped gate, when the agent runs show with %s, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });

  it('given a denied show, when the reason is read, then it says how to give the number', () => {
    expect(why('recap show')).toContain(`give one summary's number, as in ${LAUNCHER} show 12`);
    expect(why('recap show 12 13')).toContain('show takes one number');
    expect(why('recap show latest')).toContain('"latest" is not a summary\'s number');
    expect(why('recap show #12')).toContain('starts a comment');
    expect(why('recap show 12 --event')).toContain('"--event"');
  });

  it('given show N through the hook, when it is read to be run there, then its number and options come with it', () => {
    const read = (command: string) => readWayOut(command.replace(/^recap/, LAUNCHER), recapPaths);
    expect(read('recap show 12')).toEqual({ subcommand: 'show', options: new Map(), seq: 12 });
    expect(read("recap show --job other '#7' --json")).toEqual({
      subcommand: 'show',
      options: new Map<string, string | true>([
        ['--job', 'other'],
        ['--json', true],
      ]),
      seq: 7,
    });
    expect(read('recap show 12; rm x')).toBeUndefined();
    expect(read('recap chain --job 12')).toEqual({ subcommand: 'chain', options: new Map([['--job', '12']]) });
  });
});

describe('classifyBash: recap search QUERY and recap timeline [N], read-only like show', () => {
  const read = (command: string) => readWayOut(command.replace(/^recap/, LAUNCHER), recapPaths);

  it.each([
    ['a bare word', 'recap search refunds'],
    ['a quoted phrase', "recap search 'export folder'"],
    ['a double-quoted phrase', 'recap search "export folder"'],
    ['a query that looks like a command substitution, in single quotes (never expanded)', "recap search '$(rm -rf x)'"],
    ['every option', "recap search 'export folder' --all-jobs --topic billing --since 2h --limit 5 --json"],
    ['--job', 'recap search refunds --job other'],
    ['the newest', 'recap timeline'],
    ['around N', 'recap timeline 12 --before 2 --after 1 --json'],
    ['around #N, quoted', "recap timeline '#12'"],
    ['around a time', 'recap timeline --at 14:02 --job myjob'],
  ])('given a tripped gate, when the agent runs %s, then it is allowed', (_label, command) => {
    expect(classify(command).allowed).toBe(true);
  });

  it.each([
    ['a command substitution in double quotes', 'recap search "$(rm -rf x)"'],
    ['backticks', 'recap search "`rm -rf x`"'],
    ['a bare command substitution', 'recap search $(rm -rf x)'],
    ['a variable', 'recap search $HOME'],
    ['; and another command', 'recap search x; rm -rf x'],
    ['&& another command', 'recap search x && rm -rf x'],
    ['a pipe', 'recap search x | sh'],
    ['a redirection', 'recap search x > /tmp/x'],
    ['a second line', 'recap search x\nrm -rf x'],
    ['a here-document', "recap search x <<'EOF'\nx\nEOF"],
    ['no query', 'recap search'],
    ['two words unquoted', 'recap search export folder'],
    ['an unknown option', 'recap search x --exec sh'],
    ['an option value that is an option', 'recap search x --topic --json'],
    ['a query that is an option', 'recap search --help'],
    ['a substitution in an option value', 'recap search x --since "$(date)"'],
    ['timeline with a word', 'recap timeline latest'],
    ['timeline with two numbers', 'recap timeline 1 2'],
    ['timeline with an unknown option', 'recap timeline --topic x'],
    ['timeline chained', 'recap timeline 3; id'],
  ])('given a tripped gate, when the agent runs search or timeline with %s, then it is denied', (_label, command) => {
    expect(classify(command).allowed).toBe(false);
  });

  it('given two unquoted words, when the reason is read, then it says to quote them as one query', () => {
    const verdict = classify('recap search export folder');
    expect(verdict).toEqual({ allowed: false, why: `${LAUNCHER} search takes one query: quote several words as one, as in ${LAUNCHER} search 'export folder'` });
  });

  it('given search or timeline through the hook, when it is read to be run there, then the query, number and options come with it', () => {
    expect(read("recap search 'export folder' --limit 3 --all-jobs")).toEqual({
      subcommand: 'search',
      options: new Map<string, string | true>([
        ['--limit', '3'],
        ['--all-jobs', true],
      ]),
      query: 'export folder',
    });
    expect(read('recap timeline 12 --before 1')).toEqual({ subcommand: 'timeline', options: new Map([['--before', '1']]), seq: 12 });
  });
});
