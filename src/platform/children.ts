// node:child_process on first use. recap-hook's answer loads the platform (chosen at run
// time, so every system's queries are in its bundle) and must not load what only asking
// another program (ps, lsof, ss) needs: that is the fallback's and the daemon's work.
export const children = (): typeof import('node:child_process') => process.getBuiltinModule('node:child_process');
