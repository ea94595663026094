// recap-hook: the agent's hook client. Not yet wired to Claude Code; see the README.
process.stderr.write('recap-hook: not available in this version\n');
process.exitCode = 1;
