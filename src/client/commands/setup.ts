// recap's set-up: install and uninstall (an agent's hooks, systemd units, or a launchd agent),
// doctor, shell completion, and the status line the agent runs. The agents' adapters (and zod
// with them), doctor and the service files are imported by the commands that use them: loaded
// up front, they would more than double every command's start-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yargs from 'yargs';
import { helpNames, PLUGIN_AGENTS, SANDBOX_AGENTS } from '../../agents/cliFacts.js';
import { AGENT_NAMES, type AgentName } from '../../agents/known.js';
import { projectRoot } from '../../common/jobs.js';
import { readInput } from '../input.js';
import { call, here, output, UsageError, type Builder, type Global } from '../jobCommands.js';
import { addRecapServer, removeRecapServer } from '../../agents/kit/mcpServers.js';
import { documented } from './docs.js';
import { systemCheck } from '../../common/platform.js';

/** The project of this folder: where install, uninstall and doctor look. */
function projectHere(): string {
  return projectRoot(here());
}

const SERVICES = ['systemd', 'launchd'] as const;
type Target = AgentName | (typeof SERVICES)[number];

type InstallArgv = Global & { target: Target; scope: 'user' | 'project'; http: boolean; plugin: boolean; sandbox: boolean; mcp: boolean; dryRun: boolean };

/**
 * The user's command: the code it runs is recap's, recorded for the daemon to check at start
 * (before the install itself, which may fail on the agent's files after it).
 */
async function recordCode(target: string): Promise<void> {
  const note = (await import('../../common/codeManifest.js')).recordInstalledCode(process.env, target);
  if (note !== undefined) process.stderr.write(`recap: warning: ${note}\n`);
}

/** What a dry run prints: each file with the text it would hold, and each command it would run. */
function printDryRun(argv: Global, files: { file: string; text: string }[], commands: string[][]): void {
  output(argv, { dryRun: true, files, commands }, () => {
    const texts = files.map(({ file, text }) => `--- ${file}\n${text.endsWith('\n') ? text : `${text}\n`}`).join('');
    const runs = commands.map((words) => `run: ${words.join(' ')}\n`).join('');
    process.stdout.write(`dry run: recap wrote and ran nothing; it would write\n${texts}${runs}`);
  });
}

async function installSystemdUnits(argv: Global & { dryRun: boolean }): Promise<void> {
  const { installSystemd, renderUnits, systemdUserDir } = await import('../installSystemd.js');
  if (argv.dryRun) {
    printDryRun(
      argv,
      Object.entries(renderUnits()).map(([name, text]) => ({ file: join(systemdUserDir(process.env), name), text })),
      [],
    );
    return;
  }
  await recordCode('systemd');
  const files = installSystemd(process.env);
  output(argv, { files }, () => {
    process.stdout.write(`wrote ${files.join(' and ')}\nnext: systemctl --user daemon-reload && systemctl --user enable --now recap.socket\n`);
  });
}

/** launchd is macOS's: elsewhere recap says so, and a dry run still shows what a Mac would get. */
function needMac(command: string): void {
  if (process.platform === 'darwin') return;
  throw new UsageError(
    `launchd is macOS's service manager, and this is ${process.platform}: ${command} runs on a Mac` +
      `${process.platform === 'linux' ? ' (here, recap install systemd)' : ''}; recap install launchd --dry-run shows the plist on any system`,
  );
}

async function installLaunchdAgent(argv: Global & { dryRun: boolean }): Promise<void> {
  const [{ installLaunchd, planLaunchdInstall }, { LAUNCHCTL, runLaunchctl }] = await Promise.all([import('../installLaunchd.js'), import('../../platform/macos/launchctl.js')]);
  const plan = planLaunchdInstall(process.env, process.getuid!());
  const commands = plan.commands.map((args) => [LAUNCHCTL, ...args]);
  if (argv.dryRun) return printDryRun(argv, [{ file: plan.file, text: plan.text }], commands);
  needMac('recap install launchd');
  await recordCode('launchd');
  installLaunchd(plan, runLaunchctl);
  output(argv, { files: [plan.file], commands }, () => {
    process.stdout.write(
      `wrote ${plan.file} and loaded it (${commands.at(-1)!.join(' ')}): launchd starts recap's daemon at login and again when it fails\n` +
        "next: recap stop, if a daemon started on first use is running: it keeps the event log until it stops, and launchd's starts in its place\n",
    );
  });
}

async function installAgent(argv: InstallArgv & { target: AgentName }): Promise<void> {
  const { ADAPTERS } = await import('../../agents/adapters.js');
  const adapter = ADAPTERS[argv.target];
  const { title } = adapter.facts;
  if (argv.http && !adapter.http) throw new UsageError(`${title} has no HTTP hooks; install recap's command hooks (leave out --http)`);
  if (argv.plugin && argv.http) throw new UsageError('--plugin and --http are two ways to install recap: choose one');
  if (argv.plugin && !adapter.plugin) throw new UsageError(`recap has no plugin for ${title}; install its hooks (leave out --plugin)`);
  if (argv.sandbox && adapter.sandbox !== true) throw new UsageError(adapter.sandbox.unsupported);
  if (argv.mcp && adapter.mcp === undefined) throw new UsageError(`recap does not register its MCP server for ${title} yet; install its hooks (leave out --mcp)`);
  await recordCode(argv.target);
  const http = argv.http ? await call('http', {}) : undefined;
  const installed = adapter.install({
    scope: argv.scope,
    project: projectHere(),
    env: process.env,
    ...(http ? { http: { url: http.url, token: readFileSync(http.tokenFile, 'utf8').trim() } } : {}),
    ...(argv.plugin ? { plugin: true } : {}),
    ...(argv.sandbox ? { sandbox: true } : {}),
  });
  const server = argv.mcp && adapter.mcp ? addRecapServer(adapter.mcp, { scope: argv.scope, project: projectHere(), env: process.env }) : undefined;
  const { warnings, ...shown } = { ...installed, ...(server ? { mcp: server } : {}) };
  for (const warning of warnings) process.stderr.write(`recap: warning: ${warning}\n`);
  const hooks =
    installed.mode === 'plugin'
      ? `recap's ${title} plugin ${installed.changed ? 'is installed' : 'was already installed; nothing changed'} (${installed.file}); new ${title} sessions use it\n`
      : installed.changed
        ? `recap's ${installed.mode} hooks are in ${installed.file}; new ${title} sessions use them\n`
        : `recap's ${installed.mode} hooks were already in ${installed.file}; nothing changed\n`;
  const sandbox = argv.sandbox ? `${title}'s own sandbox is on and keeps its shell out of recap's files and socket; recap's hook answers the way out\n` : '';
  const mcp = server ? `recap's MCP server (search, timeline, get, decisions) ${server.changed ? 'is registered' : 'was already registered'} in ${server.file}\n` : '';
  output(argv, { ...shown, ...(argv.sandbox ? { sandbox: true } : {}) }, () => process.stdout.write(hooks + sandbox + mcp));
}

async function uninstall(argv: Global & { target: Target; scope: 'user' | 'project' }): Promise<void> {
  if (argv.target === 'launchd') {
    needMac('recap uninstall launchd');
    const [{ uninstallLaunchd }, { runLaunchctl }] = await Promise.all([import('../installLaunchd.js'), import('../../platform/macos/launchctl.js')]);
    const files = uninstallLaunchd(process.env, process.getuid!(), runLaunchctl);
    output(argv, { files }, () =>
      process.stdout.write(files.length > 0 ? `stopped recap's launchd agent and removed ${files.join(' and ')}\n` : "recap's launchd agent was not installed; nothing changed\n"),
    );
    return;
  }
  if (argv.target === 'systemd') {
    const { uninstallSystemd } = await import('../installSystemd.js');
    const files = uninstallSystemd(process.env);
    output(argv, { files }, () =>
      process.stdout.write(
        files.length > 0
          ? `removed ${files.join(' and ')}\nnext: systemctl --user stop recap.socket recap.service && systemctl --user daemon-reload\n`
          : "recap's systemd units were not installed; nothing changed\n",
      ),
    );
    return;
  }
  const { ADAPTERS } = await import('../../agents/adapters.js');
  const adapter = ADAPTERS[argv.target];
  const options = { scope: argv.scope, project: projectHere(), env: process.env };
  const files = [...adapter.uninstall(options), ...(adapter.mcp ? removeRecapServer(adapter.mcp, options) : [])];
  output(argv, { files }, () => process.stdout.write(files.length > 0 ? `removed recap's hooks from ${files.join(' and ')}\n` : 'recap had no hooks there; nothing changed\n'));
}

/** The status line the agent runs (installed into its settings, not typed: left out of --help). */
export const statuslineCommand: Builder = (y) =>
  y.command(
    'statusline',
    false,
    (a) => documented(a, 'statusline').option('with', { type: 'string', describe: "your own status-line command, run first on the same input; its line comes before recap's" }),
    async (argv) => {
      const { statusline } = await import('../statusline.js');
      const input = process.stdin.isTTY ? '' : await readInput(undefined, 'status');
      process.stdout.write(`${await statusline(input, argv.with, process.env)}\n`);
    },
  );

/** recap install and uninstall: an agent's hooks, systemd units, or a launchd agent. */
export const installCommands: Builder = (y) =>
  y
    .command(
      'install <target>',
      "add recap's hooks to an agent (or systemd, launchd)",
      (a) =>
        documented(a, 'install')
          .hide('job')
          .positional('target', { choices: [...AGENT_NAMES, ...SERVICES] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const, describe: "user settings, or this project's" })
          .option('http', { type: 'boolean', default: false, describe: "HTTP hooks to the daemon's loopback endpoint instead of commands" })
          .option('plugin', { type: 'boolean', default: false, describe: `as the agent's plugin (${helpNames(PLUGIN_AGENTS)}), instead of hooks in its settings` })
          .option('sandbox', {
            type: 'boolean',
            default: false,
            describe: `also turn on the agent's own OS sandbox, kept out of recap's files and socket (${helpNames(SANDBOX_AGENTS)})`,
          })
          .option('mcp', { type: 'boolean', default: false, describe: "also register recap's read-only MCP server (recap mcp) with the agent" })
          .option('dry-run', { type: 'boolean', default: false, describe: 'systemd and launchd: print the files and commands, write and run nothing' }),
      (argv) => {
        // A service is the user's, whatever the project: an option for an agent's settings would go unused.
        if ((argv.target === 'systemd' || argv.target === 'launchd') && (argv.scope !== 'user' || argv.http || argv.plugin || argv.sandbox || argv.mcp)) {
          throw new UsageError(
            `--scope, --http, --plugin, --sandbox and --mcp are for an agent's settings; ${argv.target}'s service is the user's: recap install ${argv.target} takes only --dry-run`,
          );
        }
        if (argv.target === 'systemd') return installSystemdUnits(argv);
        if (argv.target === 'launchd') return installLaunchdAgent(argv);
        if (argv.dryRun) throw new UsageError(`--dry-run is for recap install systemd and launchd; for ${argv.target}, recap doctor shows what is installed`);
        return installAgent({ ...argv, target: argv.target });
      },
    )
    .command(
      'uninstall <target>',
      "remove recap's hooks from an agent (or the service)",
      (a) =>
        documented(a, 'uninstall')
          .hide('job')
          .positional('target', { choices: [...AGENT_NAMES, ...SERVICES] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const }),
      (argv) => uninstall(argv),
    );

export const doctorCommand: Builder = (y) =>
  y.command(
    'doctor',
    'check the installation; --fix repairs what it can',
    (a) =>
      documented(a, 'doctor').option('fix', {
        type: 'boolean',
        default: false,
        describe: 'fix what recap can itself (permissions, a stale socket, hooks that point nowhere) and say what changed',
      }),
    async (argv) => {
      const [{ fixDoctor, runDoctor }, { printChecks, printFixed }] = await Promise.all([import('../doctor.js'), import('../present/checks.js')]);
      // On a system recap does not run on, the one check that matters: every other would fail without saying why.
      const unsupported = systemCheck(process.platform);
      const fixed = argv.fix && !unsupported ? await fixDoctor(projectHere(), process.env) : undefined;
      const checks = unsupported ? [unsupported] : await runDoctor(projectHere(), process.env);
      output(argv, { ...(fixed ? { fixed } : {}), checks }, () => {
        if (fixed) printFixed(fixed);
        printChecks(checks);
      });
      if (checks.some((c) => !c.ok)) process.exitCode = 1;
    },
  );

export const initCommand: Builder = (y) =>
  y.command(
    'init',
    'mark this project (.recap/) for SCOPE=marked',
    (a) => documented(a, 'init').hide('job'),
    async (argv) => {
      const { markProject } = await import('../init.js');
      const marked = markProject(projectHere());
      output(argv, marked, () => {
        const made = marked.created.length === 0 ? `${marked.folder} was there already: nothing changed` : `made ${marked.created.join(' and ')}`;
        process.stdout.write(`${made}\nrecap acts in this project under SCOPE=marked too; to undo: rm -r ${marked.folder} (a job recap holds stays gated)\n`);
      });
    },
  );

export const completionCommand: Builder = (y) =>
  y.command(
    'completion <shell>',
    'shell completion script (bash, zsh, fish)',
    (a) =>
      documented(a, 'completion')
        .hide('job')
        .positional('shell', { choices: ['bash', 'zsh', 'fish'] as const, demandOption: true }),
    (argv) => completionScript(argv.shell),
  );

/**
 * Prints yargs's completion script for `shell`. yargs picks the script by $SHELL when an
 * instance is made, so one is made with the shell asked for; the script asks `recap
 * --get-yargs-completions` for the words, which every build of the CLI answers.
 */
function completionScript(shell: 'bash' | 'zsh' | 'fish'): void {
  const saved = process.env.SHELL;
  process.env.SHELL = `/bin/${shell}`;
  try {
    // Its typings leave out the second argument (the command named in the script's comment).
    (yargs([]).scriptName('recap').showCompletionScript as (name: string, command: string) => void)('recap', `completion ${shell}`);
  } finally {
    if (saved === undefined) delete process.env.SHELL;
    else process.env.SHELL = saved;
  }
}
