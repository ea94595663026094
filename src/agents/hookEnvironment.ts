// The environment recap-hook runs with, for an agent whose hook settings can name one (Gemini
// CLI's extension, Qwen Code's settings): both read a trusted project's .env into their hooks'
// environment, every variable the user has not set.
import { dataDir, socketPath, userConfigPath } from '../common/paths.js';

/** Variables that load code into a process (Node, curl) before it runs: none has a say in recap's hook. */
export const LOADERS = [
  'NODE_OPTIONS',
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'BASH_ENV',
  'DYLD_INSERT_LIBRARIES',
  // OpenSSL's config can load a module of its own: Node and libcurl both read it at start.
  'OPENSSL_CONF',
  'OPENSSL_MODULES',
  'OPENSSL_ENGINES',
  'GCONV_PATH',
  // The launcher's bare perl: a module named in these would run before it answers.
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
];

/**
 * Variables bash reads at its start that make it print into the hook's answer: with
 * SHELLOPTS=xtrace and BASH_XTRACEFD=1 (a project's .env can set both for Gemini CLI and Qwen
 * Code), every command of `bash -c` is echoed on stdout before recap's answer, which the agent
 * then takes for plain text, and lets the tool run.
 */
export const SHELL_TRACE = ['SHELLOPTS', 'BASHOPTS', 'BASH_XTRACEFD', 'PS4'];

/**
 * Code loaded before recap-hook (NODE_OPTIONS, LD_PRELOAD, BASH_ENV) could answer for it, a
 * shell told to trace (SHELLOPTS) would print before it, and
 * another RECAP_SOCKET and RECAP_DATA_DIR would start a daemon of their own with an empty log.
 * So the hook names recap's own socket, data and config as the user's environment had them at
 * install, clears those loaders, and keeps recap-hook's own deadline.
 */
export function hookEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    RECAP_SOCKET: socketPath(env),
    RECAP_DATA_DIR: dataDir(env),
    RECAP_CONFIG: userConfigPath(env),
    RECAP_HOOK_DEADLINE_MS: '',
    ...Object.fromEntries([...LOADERS, ...SHELL_TRACE].map((name) => [name, ''])),
  };
}
