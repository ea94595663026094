// Posting hook payloads to the real daemon's HTTP endpoint, as Claude Code's `type: "http"`
// hooks do: enabled through the socket's http op, with the token from its 0600 file.
import { readFileSync } from 'node:fs';
import { request, type OutgoingHttpHeaders } from 'node:http';
import { RawClient, type Sandbox } from './daemon.js';

export type HttpReply = { status: number; body: string } | { error: string };

export type Endpoint = { port: number; token: string; url: string };

/** Turns the endpoint on (the daemon must have been started with RECAP_HTTP_PORT in its env). */
export async function enableHttp(box: Sandbox): Promise<Endpoint> {
  const socket = await RawClient.connect(box.socket);
  try {
    const answer = await socket.request({ id: 1, op: 'http' });
    const { url, tokenFile } = answer.result as { url: string; tokenFile: string };
    return { url, port: Number(new URL(url).port), token: readFileSync(tokenFile, 'utf8').trim() };
  } finally {
    socket.close();
  }
}

/** POSTs `body` (bytes, or a payload to send as JSON) with the token unless `headers` say otherwise. */
export function postHook(endpoint: Endpoint, body: unknown, options: { headers?: OutgoingHttpHeaders; path?: string; method?: string } = {}): Promise<HttpReply> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: endpoint.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/hooks/claude',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${endpoint.token}`, 'content-length': bytes.length, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(bytes);
  });
}

/** The reason of a 200 deny body: what Claude Code reads as a deny from an HTTP hook. */
export function httpDenyReason(reply: HttpReply): string {
  if ('error' in reply) throw new Error(`the request failed (${reply.error}): Claude Code would let the tool run`);
  if (reply.status !== 200) throw new Error(`status ${reply.status} (${reply.body}): Claude Code would let the tool run`);
  const output = JSON.parse(reply.body) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  if (output.hookSpecificOutput?.permissionDecision !== 'deny') throw new Error(`not a deny: ${reply.body}`);
  return output.hookSpecificOutput.permissionDecisionReason!;
}
