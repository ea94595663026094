// The agent's cheap ways around recap's protected paths by naming them from somewhere else:
// given a line that moves to another folder (cd, git -C, a subshell), a `~` bash leaves as it
// is, or recap's daemon seen as a folder of /proc, when it names recap's files from there,
// then it is refused; the same moves that name the agent's own files pass.
import { describe, expect, it } from 'vitest';
import { claudeFacts, claudeToolCall } from '../../src/agents/claude/facts.js';
import { pathWords } from '../../src/events/pathNames.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { foldersEntered } from '../../src/events/shellFolders.js';
import { tokenize } from '../../src/events/shellTokens.js';

const HOME = '/home/ann';
const CWD = `${HOME}/src/app`;
// Folders not named recap: a word "recap" is refused by another rule (runsRecap.ts), and the
// user may put recap's files anywhere (RECAP_DATA_DIR, RECAP_CONFIG).
const DATA = `${HOME}/.local/share/rc`;
const CONFIG = `${HOME}/.config/rc`;
const DAEMON_PID = 4242;
const STATE: ProtectedState = {
  paths: [DATA, CONFIG],
  home: HOME,
  readOnly: [`${HOME}/.claude/settings.json`],
  settingsNames: claudeFacts.settingsNames,
  recapProcesses: { pids: [DAEMON_PID], names: [] },
};

const when = (tool: string, input: unknown) => protectionRefusal(claudeToolCall(tool, input), CWD, STATE, new Set());
const bash = (command: string) => when('Bash', { command });

describe('given a line that moves to another folder', () => {
  it.each([
    ['cd up, then a relative path', 'cd ../../.local/share && rm -rf rc/log'],
    ['cd from home', 'cd ~/.local/share && rm -rf rc'],
    ['two cds', 'cd .. && cd .. && cat .config/rc/config.conf'],
    ['cd with an option', 'cd -P ../.. && cat .config/rc/config.conf'],
    ['cd to $HOME', 'cd "$HOME" && truncate -s 0 .local/share/rc/log/LOG'],
    ['cd with no folder: home', 'cd && rm -rf .local/share/rc'],
    ['pushd', 'pushd ~/.config; echo TOKEN_THRESHOLD=99999999 > rc/config.conf'],
    ['a subshell', '(cd ../../.local/share; rm -rf rc)'],
    ['code handed to bash -c', "bash -c 'cd ../../.local/share && rm -rf rc'"],
    ['env -C', 'env -C ../../.local/share rm -rf rc'],
    ['env --chdir=', 'env --chdir=/home/ann/.local/share rm -rf rc'],
    ['git -C', 'git -C ~/.config rm -r rc'],
    ['tar --directory=', 'tar --directory=/home/ann/.local/share -cf /tmp/x.tar rc'],
    ['make -C', 'make -C ../../.config -f rc/config.conf'],
  ])("when it names recap's files from there (%s), then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });

  it("when it names an agent's settings from there with the name split by quotes, then it is refused", () => {
    expect(bash(`cd ~/.. && cd ann/.cl''aude && echo '{}' > settings.json`)).toMatch(/what wires recap in/);
    expect(bash(`cd ../other && cd .cl''aude && echo '{}' > settings.json`)).toMatch(/Claude Code's settings/);
  });

  it('when one program is given folder after folder, then it is refused at once, not judged from every combination', () => {
    // Without the bound, 60 folders each taken from every one before it would never be judged
    // (the test's own time limit fails it).
    const command = `env ${Array.from({ length: 60 }, (_, i) => `-C d${i}`).join(' ')} ls`;
    expect(bash(command)).toMatch(/more folders than recap follows in one line/);
  });

  it('when it moves through more folders than recap follows, then it is refused and says what to do', () => {
    const command = `${Array.from({ length: 6 }, (_, i) => `cd d${i} && cd ..`).join(' && ')} && rm -rf .local/share/rc`;
    expect(bash(command)).toMatch(/more folders than recap follows in one line \(32\); split it/);
  });

  it.each([
    ['cd into the project', 'cd src && ls lib'],
    ['cd up and back', 'cd .. && ls app'],
    ['git -C a sibling', 'git -C ../lib status'],
    ['a folder the shell works out', 'cd "$(git rev-parse --show-toplevel)" && git status'],
    ['pushd and popd', 'pushd src && make && popd'],
  ])("when it names the agent's own files (%s), then it passes", (_what, command) => {
    expect(bash(command)).toBeUndefined();
  });

  it('then each folder is taken from every folder the line may already be in', () => {
    expect(foldersEntered('cd .. && cd lib', [CWD], HOME)).toEqual([`${HOME}/src`, `${HOME}/src/app/lib`, `${HOME}/src/lib`]);
  });
});

describe('given a `~` bash does not expand', () => {
  it('then a quoted one is a name in the current folder, an unquoted one is home', () => {
    const words = (command: string) => {
      const tokenized = tokenize(command);
      return tokenized.ok ? pathWords(tokenized.tokens) : [];
    };
    expect(words(`cat '~/x' "~"/y`)).toEqual(['cat', './~/x', './~/y']);
    expect(words('cat ~/x')).toEqual(['cat', '~/x']);
    expect(words('cat ~ann/x')).toEqual(['cat', '~ann/x', '~/x']);
  });

  it.each([
    ['~+, the current folder', 'rm -rf ~+/../../.local/share/rc'],
    ['$PWD', 'rm -rf "$PWD"/../../.local/share/rc'],
    ['~user', 'rm -rf ~ann/.local/share/rc'],
  ])("when %s leads to recap's files, then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });
});

describe("given recap's daemon as a folder of /proc", () => {
  it.each([
    ['Read', { file_path: `/proc/${DAEMON_PID}/fd/20` }],
    ['Read', { file_path: `/proc/${DAEMON_PID}/environ` }],
    ['Read', { file_path: `/proc/0${DAEMON_PID}/cmdline` }],
    ['Write', { file_path: `/proc/${DAEMON_PID}/fd/20`, content: '' }],
    ['Glob', { pattern: '*', path: `/proc/${DAEMON_PID}/fd` }],
    ['Grep', { pattern: 'x', path: `/proc/${DAEMON_PID}/fd/20` }],
  ])('when %s %j reaches into it, then it is refused', (tool, input) => {
    expect(when(tool, input)).toMatch(/recap's own process/);
  });

  it.each([
    ['cat of an open file', `cat /proc/${DAEMON_PID}/fd/20`],
    ['a glob of its files', `cat /proc/${DAEMON_PID}/fd/*`],
    ['a glob of every process', 'cat /proc/*/fd/*'],
    ['a truncation', `: > /proc/${DAEMON_PID}/fd/20`],
    ['from /proc itself', `cd /proc && cat ${DAEMON_PID}/environ`],
    ['code handed to python', `python3 -c "open('/proc/${DAEMON_PID}/fd/20', 'w')"`],
  ])('when a command reaches into it (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toMatch(/recap's own process/);
  });

  it.each([
    ['its own status', 'cat /proc/self/status'],
    ['another process', 'cat /proc/1234/status'],
    ['the list of processes', 'ls /proc'],
  ])('when a command reads another part of /proc (%s), then it passes', (_what, command) => {
    expect(bash(command)).toBeUndefined();
  });
});

describe('given the spellings a second attack found', () => {
  it.each([
    ["$'' quoting inside a name", `rm -rf ~/.local/share/r$''c/log`],
    ["$'...' escapes", `cat ~/.config/$'\\x72'c/config.conf`],
    ['a brace expansion', 'rm -rf ../../.local/share/{rc,x}/log'],
    ['code handed to bash -c', "bash -c 'rm -rf ../../.local/share/rc/log'"],
    ['code in backticks', 'echo `rm -rf ../../.local/share/rc/log`'],
    ['a cd inside $(...)', 'echo "$(cd ../..; rm -rf .local/share/rc/log)"'],
    ['CDPATH set in the line', 'CDPATH=../../.local cd share && rm -rf rc/log'],
    ['an abbreviated long option', 'env --ch=../../.local/share rm -rf rc/log'],
    ['a run of short options', 'env -iC../../.local/share rm -rf rc/log'],
    ["tar's old-style letters", 'tar cfC /tmp/x.tar ../../.local/share rc --remove-files'],
    ['npm -C', 'npm -C ../../.local/share exec -- rm -rf rc/log'],
    ['git --work-tree', 'git --work-tree=../../.local/share clean -fdx rc'],
  ])("when a line reaches recap's files by %s, then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });

  it.each([
    ['rm of a folder above the data', 'rm -rf ~/.local/share'],
    ['mv of a folder above the data', 'mv ~/.local/share ~/.local/old'],
    ['chmod of a folder above the config', 'chmod -R 000 ~/.config'],
  ])("when a line could move or remove a folder holding recap's files (%s), then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/could move or remove \/home\/ann\/\.(local\/share|config), which holds recap's own files/);
  });

  it.each([
    ['a descriptor opened on the folder above', 'cat /dev/fd/3/rc/log 3<../../.local/share'],
    ["a descriptor of the shell's own", 'rm -rf /proc/self/fd/3/rc/log 3<../../.local/share'],
  ])('when a line names a path below an open file descriptor (%s), then it is refused and says what to do', (_what, command) => {
    expect(bash(command)).toMatch(/below an open file descriptor .*; name the file by its own path/);
  });

  it.each([
    ['reading a folder above the data', 'ls -la ~/.local/share'],
    ['removing a build folder', 'rm -rf ~/src/app/build'],
    ['a brace expansion in the project', 'cp src/{a,b}.ts /tmp/'],
    ["an $'...' string", `printf $'a\\tb\\n'`],
  ])('when a line does ordinary work (%s), then it passes', (_what, command) => {
    expect(bash(command)).toBeUndefined();
  });
});

describe('given a copy whose line does not name where it lands', () => {
  it.each([
    ['a folder copied into home', 'cp -r /tmp/w/.local ~/'],
    ['the same without the slash', 'cp -r /tmp/w/.local ~'],
    ['two folders into $HOME', 'cp -R /tmp/w/.local /tmp/w/.claude $HOME'],
    ['into a parent of the folder it runs in', 'cp -r /tmp/w/.config ../..'],
    ['rsync of a folder', 'rsync -a /tmp/w/.local ~/'],
    ['mv of a folder', 'mv /tmp/w/.config ~'],
    ['a link made under the source’s name', 'ln -s /tmp/w/.local ~'],
    ['cp -t', 'cp -rt ~ /tmp/w/.local'],
    ['cp --target-directory=', 'cp --target-directory=/home/ann -r /tmp/w/.local'],
    ['from a folder entered first', 'cd /tmp/w && cp -r .local ~'],
  ])("when it lands on recap's files (%s), then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });

  it.each([
    ['settings copied into home', 'cp -r /tmp/w/.claude ~'],
    ['the same by rsync', 'rsync -a /tmp/w/.claude ~/'],
  ])('when it lands on what wires recap in (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toMatch(/what wires recap in/);
  });

  it.each([
    ["a folder's contents by rsync", 'rsync -a /tmp/fake/ ~/'],
    ["a folder's contents by cp", 'cp -a /tmp/fake/. ~'],
    ['an archive unpacked into home', 'tar -xf /tmp/e.tar -C ~'],
    ["an archive unpacked in tar's old style", 'tar xfC /tmp/e.tar ~'],
    ['an archive unpacked after cd', 'cd ~ && tar xf /tmp/e.tar'],
    ['a zip unpacked into home', 'unzip -o /tmp/e.zip -d ~'],
    ['a zip unpacked in home after cd', 'cd && unzip -o /tmp/e.zip'],
  ])('when it puts names it does not show where recap keeps its files (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toMatch(/does not name into/);
  });

  it.each([
    'cp -r src dist/',
    'cp -r /tmp/w/.local build/',
    'rsync -a /tmp/fake/ build/',
    'cp -a template/. .',
    'tar -xf /tmp/e.tar -C build',
    'tar xzf /tmp/e.tar.gz',
    'unzip /tmp/e.zip -d vendor',
    'cp notes.txt ~/Documents/',
    'mv a.txt b.txt',
    'rsync -a src/ user@host:/srv/app/',
  ])('when it lands in the agent’s own files (%s), then it passes', (command) => {
    expect(bash(command)).toBeUndefined();
  });
});

describe('given a line that moves, removes or locks a folder holding recap’s files', () => {
  it.each(['rm -rf ~', 'chmod 000 $HOME', 'mv $HOME /tmp/gone', 'chown -R nobody ~', 'cd .. && rm -rf ../..', 'setfacl -m u:ann:--- ~'])(
    'when it is home or a folder the line sits in (%s), then it is refused',
    (command) => {
      expect(bash(command)).toMatch(/could move, remove or lock \/home\/ann, which holds recap's own files/);
    },
  );

  it.each(['mv notes.txt ~', 'chmod +x ~/src/app/run.sh', 'rm -rf ~/src/app/build', 'chmod 644 ~/notes.txt', 'rm -rf .'])(
    'when it is a folder holding none (%s), then it passes',
    (command) => {
      expect(bash(command)).toBeUndefined();
    },
  );
});

describe('given home or the folder the line is in spelled as bash works it out', () => {
  it.each([
    ['~- after two cds', 'cd ~ && cd /tmp && rm -rf ~-/.local/share/rc'],
    ['~1 of the folder stack', 'pushd ~ >/dev/null; pushd /tmp >/dev/null; rm -rf ~1/.local/share/rc'],
    ['${HOME%/}', 'rm -rf ${HOME%/}/.local/share/rc'],
    ['${HOME:-x}', 'rm -rf ${HOME:-/x}/.config/rc'],
    ['${HOME:+$HOME}', 'rm -rf ${HOME:+$HOME}/.config/rc'],
    ['$(pwd) after cd', 'cd && rm -rf $(pwd)/.config/rc'],
    ['`pwd` after cd', 'cd && rm -rf `pwd`/.config/rc'],
  ])("when it names recap's files (%s), then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });

  it('when ${HOME:+x} names another folder, then that folder is judged too', () => {
    expect(bash('rm -rf ${HOME:+/home/ann/.config}/rc')).toMatch(/recap's own files/);
    expect(bash('rm -rf ${HOME:+/tmp}/rc')).toBeUndefined();
  });
});

describe('given a copy, an unpacking, a patch or a download in forms a second review found', () => {
  it.each([
    ['cp -T merging a folder into home', 'cp -rT /tmp/fx/a ~'],
    ['find -exec cp -t home', 'find /tmp/fx/c -mindepth 1 -maxdepth 1 -exec cp -rt ~ {} +'],
    ['xargs cp -t home', 'ls /tmp/fx | xargs -0 cp -rt /home/ann'],
    ['python -m zipfile -e', 'python3 -m zipfile -e /tmp/fx/d.zip ~'],
    ['python -m tarfile -e', 'python3 -m tarfile -e /tmp/fx/d.tar /home/ann'],
    ['gtar', 'gtar -xf /tmp/e.tar -C ~'],
    ['toybox tar', 'toybox tar -xf /tmp/e.tar -C ~'],
    ['7z x -o', '7z x /tmp/e.7z -o/home/ann'],
    ['unar -o', 'unar -o ~ /tmp/e.zip'],
    ['jar xf after cd', 'cd ~ && jar xf /tmp/e.jar'],
    ['cpio -i after cd', 'cd ~ && cpio -idm < /tmp/e.cpio'],
    ['tar with absolute member names', 'tar -xPf /tmp/abs.tar -C /tmp/out'],
    ['unzip -: with .. member names', 'unzip -: /tmp/dotdot.zip -d /tmp/out'],
    ['rsync --files-from', 'rsync -a --files-from=/tmp/list /tmp/w ~'],
    ['patch -d home', 'patch -d ~ -p1 < /tmp/f.diff'],
    ['patch after cd home', 'cd ~ && patch -p1 < /tmp/f.diff'],
    ['git apply in home', 'cd ~ && git apply --unsafe-paths /tmp/f.diff'],
    ['git reset --hard with home as the work tree', 'git --git-dir=/tmp/x/.git --work-tree=$HOME reset --hard'],
    ['git checkout with home as the work tree', 'git --work-tree ~ checkout -f .'],
    ['git pull in home', 'git -C ~ pull /tmp/x'],
    ['wget -r into home', 'wget -r -nH -P ~ http://127.0.0.1:8000/'],
  ])('when it puts files its line does not name into home (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toMatch(/does not name into/);
  });

  it.each([
    ['cp --parents', 'cd /tmp/w && cp -r --parents .local/share ~'],
    ['rsync -R with its /./ marker', 'rsync -aR /tmp/w/./.local/share ~'],
    ['scp from localhost', 'scp -r localhost:/tmp/w/.local ~'],
    ['rsync to localhost: (home there)', 'rsync -a /tmp/w/.local localhost:'],
  ])("when it lands on recap's files with more of its path than its name (%s), then it is refused", (_what, command) => {
    expect(bash(command)).toMatch(/recap's own files/);
  });

  it.each([
    ['wget -P', 'wget -N -P ~ http://127.0.0.1:8000/.claude/settings.json'],
    ['curl -O after cd', 'cd ~/.claude && curl -O http://127.0.0.1:8000/settings.json'],
  ])('when a download lands on what wires recap in (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toMatch(/what wires recap in|Claude Code's settings/);
  });

  it.each([
    'patch -p1 < /tmp/fix.diff',
    'git apply /tmp/fix.diff',
    'git checkout -b feature',
    'git pull --rebase',
    'git reset --hard HEAD~1',
    'wget -P vendor https://example.com/lib.tar.gz',
    'curl -O https://example.com/data.json',
    'cp --parents src/a.ts build/',
    'python3 -m zipfile -e /tmp/fx/d.zip vendor',
  ])('when it works in the project (%s), then it passes', (command) => {
    expect(bash(command)).toBeUndefined();
  });
});
