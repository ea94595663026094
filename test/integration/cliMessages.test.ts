// What the user reads when a command's argument is out of range, through the real CLI and
// daemon: given a number past any event, a pause of nothing or of centuries, a reason longer
// than a trip keeps, an empty job name, a summary file that is a device, missing or a folder,
// an option the command does not have, a number with a minus, a required option left out, a
// value not among the choices, then each says what was wrong in the words of the command's
// own arguments, exits 1, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';

describe("given a command's argument out of range", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    expect((await runCli(box, ['record', '--text', 'Make the parser report each error with its line.'])).code).toBe(0);
  });
  afterAll(() => closeSandbox(box, daemon));

  it.each([
    ['an event number past any event', ['event', '99999999999999999'], /^recap: there is no event #\d+: the log holds events #1 to #\d+\n$/],
    ['a pause of nothing', ['pause', '0s'], /^recap: a duration of 0s is none: give at least 1s\n$/],
    ['a pause of centuries', ['pause', '99999999999999d'], /^recap: 99999999999999d is longer than a year: give at most 365d\n$/],
    ['a reason longer than a trip keeps', ['trip', '--reason', 'x'.repeat(2000)], /^recap: --reason is 2000 characters; keep it to 1000\n$/],
    ['an empty job name', ['--job', '', 'status'], /^recap: status: job is empty\n$/],
    [
      'a summary file that is a device, read forever before',
      ['submit', '--file', '/dev/zero'],
      /^recap: \/dev\/zero is not a regular file: give the file that holds the summary, or - for stdin\n$/,
    ],
    ['a summary file that is not there', ['submit', '--file', '/nonexistent/summary.md'], /^recap: cannot read \/nonexistent\/summary.md \(ENOENT\): there is no such file\n$/],
    ['a summary file that is a folder', ['submit', '--file', '/tmp'], /^recap: \/tmp is a folder: give the file that holds the summary\n$/],
    ['a command that does not exist', ['jbos'], /^recap: there is no command jbos: did you mean jobs\? see recap --help\n$/],
    ['a command without its argument', ['show'], /^recap: show needs an argument it was not given; see recap show --help\n$/],
    ['a span with a minus', ['pause', '-1h'], /^recap: -1h reads as an option: give a span or a time without a minus/],
    ['a time with a minus', ['report', '--since', '-5m'], /^recap: -5m reads as an option/],
    ['an option the command does not have', ['log', '--limit', '3'], /^recap: --limit: recap log has no such option; see recap log --help\n$/],
    ['an option it does not have, given a number with a minus', ['log', '--limit', '-3'], /^recap: --limit: recap log has no such option/],
    ['a number with a minus', ['show', '--', '-3'], /^recap: -3 reads as an option: give the number without a minus; see recap show --help\n$/],
    ['a required option left out', ['replay'], /^recap: recap replay needs --at; see recap replay --help\n$/],
    [
      'a summary number that is a long text',
      ['show', 'a'.repeat(5000)],
      /^recap: recap show takes a summary's number such as 12 or #12 \(recap chain lists them\), not "a{60}"\.\.\. \(5000 characters\)\n$/,
    ],
    [
      'a --since after its --until',
      ['log', '--since', '11:00', '--until', '10:00'],
      /recap: --since 11:00 is after --until 10:00: no event can be both; give the earlier time to --since\n$/,
    ],
    [
      'an agent’s option given to a service',
      ['install', 'systemd', '--scope', 'project'],
      /^recap: --scope, --http, --plugin, --sandbox and --mcp are for an agent's settings; systemd's service is the user's: recap install systemd takes only --dry-run\n$/,
    ],
    ['a value not among the choices', ['log', '--type', 'Bogus'], /^recap: --type cannot be "Bogus": give one of InteractionRecorded, GateTripped, .*; see recap log --help\n$/],
  ])('when it is %s, then it says so plainly and exits 1', async (_what, args, message) => {
    const run = await runCli(box, args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it('then nothing changed: the gate is neither paused nor tripped', async () => {
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
    expect((await runCli(box, ['status'])).stdout).not.toContain('paused');
  });

  it('when an interaction of a kind that does not count is recorded, then it says so and why', async () => {
    const run = await runCli(box, ['record', '--kind', 'note', '--text', 'a note for later']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^recorded #\d+ \(\d+ tokens?, not counted: COUNT_KINDS is prompt, qa, not note\)\n/);
    const prompt = await runCli(box, ['record', '--text', 'Make the errors name their files.']);
    expect(prompt.stdout).toMatch(/^recorded #\d+ \(\d+ tokens?\)\n/);
  });
});
