// The job's commands: its gate and tokens (status), what an agent or a script tells the gate
// (record, check, submit), the memory (context, chain, show, decisions), the user's hold on the gate (trip,
// pause, resume) and where the tokens went (report).
import { AGENT_NAMES } from '../../agents/known.js';
import { DEFAULT_AGENT } from '../../agents/cliFacts.js';
import { readInput } from '../input.js';
import { call, chain, context, decisions, jobOf, output, show, status, target, UsageError, type Builder } from '../jobCommands.js';
import { printReport, printStatus, printSubmit } from '../present/gate.js';
import { printSessionLines, printSessionReport } from '../present/sessions.js';
import { printQuality } from '../present/quality.js';
import { localTime, parseDuration, timeFlag, TIME_HINT } from '../time.js';
import { documented } from './docs.js';
import { counted } from '../present/counted.js';
import { MAX_TRIP_NOTE } from '../../protocol/limits.js';

const EXIT_DENIED = 2;

export const statusCommand: Builder = (y) =>
  y.command(
    'status',
    "the job's gate and tokens; --daemon: the daemon",
    (a) => documented(a, 'status').option('daemon', { type: 'boolean', default: false, describe: 'the daemon instead: PID, version, uptime, socket, data folder, log size' }),
    (argv) => status(argv),
  );

/** recap record, check and submit: what an agent (or a script) tells the gate. */
export const agentCommands: Builder = (y) =>
  y
    .command(
      'record',
      'record an interaction (for scripts and agents)',
      (a) =>
        documented(a, 'record')
          .option('kind', { type: 'string', default: 'prompt', describe: 'prompt, qa, or another kind' })
          .option('text', { type: 'string', describe: 'the text (default: stdin)' }),
      async (argv) => {
        const text = argv.text ?? (await readInput('-', 'interaction'));
        const result = await call('record', { ...target(argv), kind: argv.kind, text });
        output(argv, result, () => {
          const uncounted = result.uncounted !== undefined ? `, not counted: ${result.uncounted}` : '';
          process.stdout.write(`recorded #${result.seq} (${counted(result.tokens, 'token')}${uncounted})\n`);
          if (result.gate) printStatus(result.gate);
        });
      },
    )
    .command(
      'check',
      'ask the gate about a tool call (exit 2: denied)',
      (a) =>
        documented(a, 'check')
          .option('tool', { type: 'string', demandOption: true, describe: "the tool's name as the agent calls it, e.g. Bash or Read" })
          .option('input', { type: 'string', describe: "the tool's input as JSON" })
          .option('agent', { choices: AGENT_NAMES, default: DEFAULT_AGENT, describe: 'whose tool names --tool and --input are in' }),
      async (argv) => {
        let input: unknown;
        if (argv.input !== undefined) {
          try {
            input = JSON.parse(argv.input);
          } catch {
            throw new UsageError(`--input is not valid JSON: ${argv.input}`);
          }
        }
        const result = await call('check', { ...target(argv), tool: argv.tool, from: argv.agent, ...(input !== undefined ? { input } : {}) });
        output(argv, result, () => process.stdout.write(result.allow ? 'allowed\n' : 'denied\n'));
        // The reasons go to stderr, with --json too.
        if (!result.allow) process.stderr.write(`${result.reason ?? ''}\n`);
        if (!result.allow) process.exitCode = EXIT_DENIED;
      },
    )
    .command(
      'submit [stdin]',
      'submit a summary (stdin or --file; 2: rejected)',
      (a) =>
        documented(a, 'submit')
          .positional('stdin', { type: 'string', describe: '- reads the summary from stdin (the default)' })
          .option('file', { type: 'string', alias: 'f', describe: 'read the summary from this file (- for stdin)' })
          .option('topic', { type: 'string', describe: 'keep it on the chain of this topic, apart from the main one' }),
      async (argv) => {
        // yargs reads a lone "-" as an empty string.
        if (argv.stdin !== undefined && argv.stdin !== '-' && argv.stdin !== '') {
          throw new UsageError(`recap submit takes the summary on stdin or with --file PATH, not ${JSON.stringify(argv.stdin)}`);
        }
        const text = await readInput(argv.file, 'summary');
        const result = await call('submit', { ...target(argv), text, ...(argv.topic !== undefined ? { topic: argv.topic } : {}) });
        output(argv, result, () => printSubmit(result));
        if (!result.accepted) {
          process.stderr.write(`${result.problems.join('\n')}\n`);
          process.exitCode = EXIT_DENIED;
        }
      },
    );

/** recap context, chain, show and decisions: the job's memory, its summaries, one of them whole, its decisions. */
export const memoryCommands: Builder = (y) =>
  y
    .command(
      'context',
      'what the agent needs: the summary due, or memory',
      (a) => documented(a, 'context'),
      (argv) => context(argv),
    )
    .command(
      'chain',
      "list the job's summaries",
      (a) => documented(a, 'chain'),
      (argv) => chain(argv),
    )
    .command(
      'show <seq>',
      'one summary whole, with its gist and files',
      (a) =>
        documented(a, 'show')
          .positional('seq', { type: 'string', demandOption: true, describe: "the summary's number (N or #N), as recap chain lists it" })
          .option('original', { type: 'boolean', default: false, describe: 'the text it was accepted with, not the amendment in force' }),
      (argv) => show(argv),
    )
    .command(
      'decisions',
      "the job's decision log, newest first",
      (a) => documented(a, 'decisions'),
      (argv) => decisions(argv),
    );

/** recap trip, pause and resume: the user's hold on the job's gate. */
export const holdCommands: Builder = (y) =>
  y
    .command(
      'trip',
      'trip the gate now; --cancel opens it again',
      (a) =>
        documented(a, 'trip')
          .option('reason', { type: 'string', describe: 'why, in your words; the agent is told' })
          .option('cancel', { type: 'boolean', describe: 'open a tripped gate without a summary; what is unsummarized stays so' })
          .conflicts('cancel', 'reason'),
      async (argv) => {
        if (argv.reason !== undefined && argv.reason.length > MAX_TRIP_NOTE) throw new UsageError(`--reason is ${argv.reason.length} characters; keep it to ${MAX_TRIP_NOTE}`);
        const result = await call('trip', {
          ...target(argv),
          ...(argv.reason !== undefined ? { note: argv.reason } : {}),
          ...(argv.cancel ? { cancel: true } : {}),
        });
        output(argv, result, () => {
          if (argv.cancel) {
            process.stdout.write(result.already ? 'the gate was not tripped; nothing changed\n' : 'trip cancelled: the gate is open\n');
            if (!result.already && result.gate.unsummarizedTokens >= result.gate.threshold) {
              process.stdout.write(
                `the ${result.gate.unsummarizedTokens} unsummarized tokens are still over the threshold: it trips again at the next call; recap pause 1h holds it off\n`,
              );
            }
          } else if (result.already) process.stdout.write('the gate was already tripped\n');
          printStatus(result.gate);
        });
      },
    )
    .command(
      'pause <duration>',
      'pause the gate (30m, 2h, 1d): nothing counts',
      (a) => documented(a, 'pause').positional('duration', { type: 'string', demandOption: true, describe: 'how long: 90s, 30m, 2h or 1d' }),
      async (argv) => {
        let ms: number;
        try {
          ms = parseDuration(argv.duration);
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
        const result = await call('pause', { ...target(argv), until: Date.now() + ms });
        output(argv, result, () => {
          process.stdout.write(`${result.extended ? 'pause moved' : 'paused'}: until ${localTime(result.until)} nothing counts and the gate denies nothing\n`);
          printStatus(result.gate);
        });
      },
    )
    .command(
      'resume',
      "end a pause of the job's gate now",
      (a) => documented(a, 'resume'),
      async (argv) => {
        const result = await call('resume', target(argv));
        output(argv, result, () => {
          process.stdout.write(result.resumed ? 'resumed: interactions count and the gate works again\n' : 'the gate was not paused; nothing changed\n');
          printStatus(result.gate);
        });
      },
    );

export const reportCommand: Builder = (y) =>
  y.command(
    'report',
    'where the tokens went, per job, agent and session',
    (a) =>
      documented(a, 'report')
        .option('since', { type: 'string', describe: `from this time ${TIME_HINT}` })
        .option('session', { type: 'string', describe: "one session's tokens per model and agent, tool calls and denials" })
        .option('quality', { type: 'boolean', default: false, describe: 'memory quality: rediscovered files, re-asked questions, corrections, tokens per task' }),
    async (argv) => {
      if (argv.quality) {
        if (argv.session !== undefined || argv.since !== undefined)
          throw new UsageError('recap report --quality reads every summary of the job and the sessions after it: leave out --session and --since');
        const result = await call('report', { ...jobOf(argv), quality: true });
        output(argv, { quality: result.quality ?? [] }, () => printQuality(result.quality ?? []));
        return;
      }
      if (argv.session !== undefined) {
        const result = await call('report', { session: argv.session });
        output(argv, result, () => printSessionReport(result.session!));
        return;
      }
      const since = argv.since === undefined ? undefined : timeFlag(argv.since, '--since', argv.json);
      const result = await call('report', { ...jobOf(argv), ...(since !== undefined ? { since } : {}) });
      output(argv, result, () => {
        printReport(result.jobs);
        printSessionLines(result.sessions);
      });
    },
  );
