// The daemon's log: JSON lines on stderr, level from RECAP_LOG_LEVEL (default info).
import { pino, type Logger } from 'pino';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function createLogger(env: NodeJS.ProcessEnv): Logger {
  const wanted = env.RECAP_LOG_LEVEL?.toLowerCase() ?? 'info';
  const level = LEVELS.has(wanted) ? wanted : 'info';
  const log = pino({ name: 'recapd', level }, pino.destination({ fd: 2, sync: true }));
  if (level !== wanted) log.warn({ RECAP_LOG_LEVEL: env.RECAP_LOG_LEVEL }, `unknown log level; using info (one of ${[...LEVELS].join(', ')})`);
  return log;
}
