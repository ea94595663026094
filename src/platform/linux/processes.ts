// Processes as Linux's /proc tells them: a process's name, parent, session, terminal, command
// line and the environment it started with, and the chain of its ancestors. Node built-ins
// only: recap-hook loads it.
import { readFileSync } from 'node:fs';
import type { Proc } from '../../events/caller.js';

const MAX_ARGS = 4;
const MAX_ARG = 512;

/** One process, or undefined when it is gone or /proc is not there. */
export function readProc(pid: number): Proc | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces or parentheses itself.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  // After the name: state ppid pgrp session tty_nr ...
  const fields = stat.slice(close + 2).split(' ');
  return {
    pid,
    ppid: Number(fields[1]),
    comm,
    state: fields[0] ?? '?',
    sid: Number(fields[3]),
    tty: Number(fields[4]),
    argv: readArgv(pid),
    env: readEnv(pid),
  };
}

function readArgv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((arg) => arg !== '')
      .slice(0, MAX_ARGS)
      .map((arg) => arg.slice(0, MAX_ARG));
  } catch {
    return [];
  }
}

function readEnv(pid: number): Map<string, string> {
  const env = new Map<string, string>();
  try {
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const at = entry.indexOf('=');
      if (at > 0) env.set(entry.slice(0, at), entry.slice(at + 1));
    }
  } catch {
    // Another user's process (cron), or an undumpable one of ours (sshd's session process):
    // not ours to read. Not taken as hiding something: every ssh login has one.
  }
  return env;
}

/** A process and its ancestors, it first, up to (not including) pid 0; at most `limit`. */
export function linuxChain(from: number, limit: number): Proc[] {
  const chain: Proc[] = [];
  for (let pid = from; pid > 0 && chain.length < limit;) {
    const proc = readProc(pid);
    if (proc === undefined) break;
    chain.push(proc);
    pid = proc.ppid;
  }
  return chain;
}
