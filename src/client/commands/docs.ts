// Where each command's --help sends the reader for more: the one map of recap's commands to
// the pages under docs/ (test/unit/cliDocs.test.ts checks every command has one).
import type { Argv } from 'yargs';

export const DOC_PAGES = [
  'docs/agents.md',
  'docs/cli.md',
  'docs/configuration.md',
  'docs/memory.md',
  'docs/sync.md',
  'docs/audit.md',
  'docs/telemetry.md',
  'docs/security.md',
  'docs/performance.md',
  'docs/ARCHITECTURE.md',
] as const;

export type DocPage = (typeof DOC_PAGES)[number];

/** Each command, by its name as typed (`recap` alone is the overview), and its page. */
export const COMMAND_DOCS = {
  recap: 'docs/cli.md',
  daemon: 'docs/cli.md',
  status: 'docs/cli.md',
  stop: 'docs/cli.md',
  restart: 'docs/cli.md',
  reload: 'docs/cli.md',
  record: 'docs/cli.md',
  check: 'docs/cli.md',
  submit: 'docs/memory.md',
  context: 'docs/memory.md',
  chain: 'docs/memory.md',
  show: 'docs/cli.md',
  decisions: 'docs/memory.md',
  amend: 'docs/audit.md',
  redact: 'docs/audit.md',
  search: 'docs/memory.md',
  timeline: 'docs/memory.md',
  sync: 'docs/sync.md',
  statusline: 'docs/agents.md',
  install: 'docs/agents.md',
  uninstall: 'docs/agents.md',
  trip: 'docs/cli.md',
  pause: 'docs/cli.md',
  resume: 'docs/cli.md',
  report: 'docs/audit.md',
  doctor: 'docs/cli.md',
  init: 'docs/cli.md',
  log: 'docs/audit.md',
  event: 'docs/audit.md',
  jobs: 'docs/audit.md',
  replay: 'docs/audit.md',
  verify: 'docs/audit.md',
  export: 'docs/audit.md',
  eval: 'docs/memory.md',
  import: 'docs/audit.md',
  ui: 'docs/audit.md',
  config: 'docs/configuration.md',
  completion: 'docs/cli.md',
  mcp: 'docs/cli.md',
} as const satisfies Record<string, DocPage>;

export type CommandName = keyof typeof COMMAND_DOCS;

/** The reference of every command: its section in docs/cli.md, `## recap <command>`. */
export const commandSection = (command: Exclude<CommandName, 'recap'>): string => `docs/cli.md#recap-${command}`;

/** The line at the foot of a command's --help: its section, and the page of its topic when that is another. */
export function moreLine(command: CommandName): string {
  if (command === 'recap') return `More: ${COMMAND_DOCS.recap}`;
  const page = COMMAND_DOCS[command];
  return page === 'docs/cli.md' ? `More: ${commandSection(command)}` : `More: ${commandSection(command)} and ${page}`;
}

/** A command's options, with its --help pointing to its page. */
export function documented<T>(y: Argv<T>, command: CommandName): Argv<T> {
  return y.epilogue(moreLine(command));
}
