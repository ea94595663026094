// A scripted model's request body as text, whatever content-encoding the agent sent it in.
import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/** The whole body, decoded. */
export async function readBody(req: IncomingMessage): Promise<string> {
  return decode(await readAll(req), req.headers['content-encoding']);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function decode(bytes: Buffer, encoding: string | string[] | undefined): string {
  switch (typeof encoding === 'string' ? encoding.trim().toLowerCase() : undefined) {
    case undefined:
    case '':
    case 'identity':
      return bytes.toString('utf8');
    case 'gzip':
      return gunzipSync(bytes).toString('utf8');
    case 'deflate':
      return inflateSync(bytes).toString('utf8');
    case 'br':
      return brotliDecompressSync(bytes).toString('utf8');
    default:
      throw new Error(`content-encoding ${String(encoding)} is not supported by the mock`);
  }
}
