// Given recap's daemon as a process (pid 4242, run by node), when a command would signal it,
// in any spelling a command line shows, then it is refused; signals to other processes pass.
import { describe, expect, it } from 'vitest';
import { claudeToolCall } from '../../src/agents/claude/facts.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { signalRefusal, type RecapProcesses } from '../../src/events/recapSignals.js';

const HOME = '/home/ann';
const DAEMON: RecapProcesses = { pids: [4242], names: ['node', '/usr/bin/node /usr/lib/node_modules/recap/bin/recap.js daemon'] };
const STATE: ProtectedState = { paths: [`${HOME}/.local/share/recap`], home: HOME, recapProcesses: DAEMON };
const bash = (command: string) => protectionRefusal(claudeToolCall('Bash', { command }), `${HOME}/src/app`, STATE, new Set());

/** [what, command, a word of the refusal] */
const REFUSED: [string, string, RegExp][] = [
  ['kill -STOP of any pid', 'kill -STOP 1234', /stopping a process/],
  ['kill -s STOP', 'kill -s STOP 1234', /stopping a process/],
  ['kill -sTSTP', 'kill -sTSTP 1234', /stopping a process/],
  ['kill -19', 'kill -19 1234', /stopping a process/],
  ['kill --signal=SIGTTIN', 'kill --signal=SIGTTIN 1234', /stopping a process/],
  ['pkill -STOP after other options', 'pkill -f -STOP vite', /stopping a process/],
  ['killall -s TSTP', 'killall -s TSTP vite', /stopping a process/],
  ['kill -STOP in sh -c', "sh -c 'kill -STOP 1234'", /stopping a process/],
  ['kill of the daemon pid', 'kill 4242', /recap's daemon \(pid 4242\)/],
  ['kill -9 of the daemon pid', 'kill -9 4242', /pid 4242/],
  ["kill of the daemon's group", 'kill -- -4242', /pid 4242/],
  ['/bin/kill of the daemon', 'env /bin/kill -TERM 4242', /pid 4242/],
  ['kill -1: every process', 'kill -9 -1', /every process/],
  // kill reads its targets as numbers.
  ['kill of the daemon pid with zeros in front', 'kill -9 04242', /pid 4242/],
  ['kill of the daemon pid with a plus sign', 'kill -9 +4242', /pid 4242/],
  ["kill of the daemon's group with a zero in front", 'kill -- -04242', /pid 4242/],
  ['a computed signal at the daemon', 'kill -s $(echo STOP) 4242', /names recap's \(4242\)/],
  ['a computed signal in quotes at the daemon', 'kill -s "$(echo STOP)" 4242', /4242/],
  ['a target from pgrep -f recapd', 'kill -9 $(pgrep -f recapd)', /names recap's \(recapd\)/],
  ['a target from pgrep node', 'kill $(pgrep node)', /pgrep node/],
  ['targets from ps and grep', "ps aux | grep 'recap.js daemon' | awk '{print $2}' | xargs kill", /recap/],
  ['targets from ps and awk', "ps aux | awk '/node/ {print $2}' | xargs kill -9", /signal/],
  ['targets from ps and sed', "ps aux | sed -n '/node/p' | cut -c10-15 | xargs kill -9", /names recap's/],
  ['targets from pidof through xargs', 'pidof node | xargs kill', /pidof node/],
  ['pkill -f recapd', 'pkill -f recapd', /recapd matches recapd/],
  ['pkill -f with a regex', "pkill -f 'r[e]cap\\.js'", /matches/],
  ['killall node', 'killall node', /node matches node/],
  ['pkill node', 'pkill -9 node', /node matches node/],
  // pkill's -n and -o (newest, oldest) take no value: the next word is the pattern.
  ['pkill -n node', 'pkill -9 -n node', /node matches node/],
  ['pkill -o node', 'pkill -o node', /node matches node/],
  ['pkill by owner only', 'pkill -u ann', /by owner/],
  ['killall by owner only', 'killall -u ann', /by owner/],
  ['pkill with a computed pattern', 'pkill -f "$NAME"', /computes/],
  ['python os.kill with the pid', `python3 -c 'import os; os.kill(4242, 19)'`, /runs code that sends a signal/],
  ['python os.kill of a stop signal', `python3 -c 'import os, signal; os.kill(int(open("/tmp/p").read()), signal.SIGSTOP)'`, /runs code/],
  ['perl kill STOP', `perl -e 'kill "STOP", 1234'`, /runs code/],
  ['ruby Process.kill naming recap', `ruby -e 'Process.kill("TERM", \`pgrep -f recap\`.to_i)'`, /runs code/],
  ['node process.kill with the pid', `node -e 'process.kill(4242, "SIGKILL")'`, /runs code/],
  ['python reading code from a pipe', `echo 'import os; os.kill(4242, 9)' | python3`, /runs code/],
  ['python with a here-document', "python3 <<'EOF'\nimport os\nos.kill(4242, 9)\nEOF", /runs code/],
  ['psutil suspend', `python3 -c "import psutil; [p.suspend() for p in psutil.process_iter() if 'node' in p.name()]"`, /runs code/],
];

const ALLOWED: [string, string][] = [
  ['kill of a job', 'kill %1'],
  ['kill of another pid', 'kill 1234'],
  ['kill -9 of another pid', 'kill -9 1234'],
  ['kill of the background job just started', 'npm run dev & sleep 2; kill $!'],
  ['kill of pgrep -f vite', 'kill $(pgrep -f vite)'],
  ['pkill -f vite', 'pkill -f vite'],
  ['killall python3', 'killall python3'],
  ["killall's -o with its value", 'killall -o 5m python3'],
  ['kill of another pid with a zero in front', 'kill 01234'],
  ['kill -l', 'kill -l'],
  ['kill in a folder called recap', 'cd ~/src/recap && npm start & kill $!'],
  ['timeout with its own signal', 'timeout -s KILL 5 npm test'],
  ['python code that sends no signal', `python3 -c 'print(4242)'`],
  ['python killing its own child', `python3 -c 'import subprocess; p = subprocess.Popen(["sleep", "9"]); p.kill()'`],
];

describe("given recap's daemon as a process", () => {
  it.each(REFUSED)('when a command signals it (%s), then it is refused', (_what, command, why) => {
    expect(bash(command)).toMatch(why);
  });

  it.each(ALLOWED)('when a command signals something else (%s), then it passes', (_what, command) => {
    expect(bash(command)).toBeUndefined();
  });

  it("then with the daemon's pid unknown a computed signal is refused, a literal one at another pid is not", () => {
    expect(signalRefusal('kill -s $(echo STOP) 1234')).toMatch(/signal the shell computes/);
    expect(signalRefusal('kill -TERM 1234')).toBeUndefined();
  });

  it("then with the daemon's pid known a computed signal at another pid passes", () => {
    expect(signalRefusal('kill -s "$SIG" 1234', DAEMON)).toBeUndefined();
  });

  it('then every refusal leaves it to the user', () => {
    for (const [, command] of REFUSED) expect(bash(command)).toMatch(/only the user may do that, outside the agent$/);
  });
});

describe("given the daemon's pid and names in spellings a second attack found", () => {
  it.each([
    ['a pid in quotes with spaces', "kill -9 ' 4242'"],
    ['a pid in shell arithmetic, in hex', 'kill -9 $((0x1092))'],
    ['pkill with POSIX word edges', "pkill -f '\\<daemon\\>'"],
    ['pkill with a POSIX class', "pkill '[[:alpha:]]ode'"],
    ['pkill by an abbreviated option alone', 'pkill --eu=1000'],
    ['pkill by its runstates alone', 'pkill --runstates=S'],
    ['an abbreviated --signal', 'pkill --sig=STOP vite'],
    ["killall's -g, a switch", 'killall -g node sleep'],
    ["pkill's -O and its value", 'pkill -O 5 node'],
  ])('when a command signals it (%s), then it is refused', (_what, command) => {
    expect(bash(command)).toBeDefined();
  });
});
