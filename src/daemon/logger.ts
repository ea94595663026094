// The daemon's log: JSON lines on stderr (readable lines when stderr is a terminal), level
// from RECAP_LOG_LEVEL (default info).
import { pino, type Logger } from 'pino';
import { terminalDestination } from './terminalLog.js';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function createLogger(env: NodeJS.ProcessEnv): Logger {
  const wanted = env.RECAP_LOG_LEVEL?.toLowerCase() ?? 'info';
  const level = LEVELS.has(wanted) ? wanted : 'info';
  // At a terminal (the daemon in the foreground) as lines to read; elsewhere (its log file) as JSON.
  const destination = process.stderr.isTTY ? terminalDestination(2) : pino.destination({ fd: 2, sync: true });
  const log = pino({ name: 'recapd', level }, destination);
  if (level !== wanted) log.warn({ RECAP_LOG_LEVEL: env.RECAP_LOG_LEVEL }, `unknown log level; using info (one of ${[...LEVELS].join(', ')})`);
  return log;
}
