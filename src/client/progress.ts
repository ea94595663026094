// Progress on stderr for long commands, only when stderr is a terminal: a script or a log
// file sees nothing of it.

export type Progress = { update: (done: number) => void; done: () => void };

export function progress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let shown = false;
  return {
    update(done) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      stream.write(`\r${label}: ${done.toLocaleString('en-US')} events`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
