/*\
Reading a route's JSON body with a size limit (TiddlyWiki's own body reader has none).
\*/
import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1_000_000;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new HttpError(413, `The request body is larger than ${limit} bytes.`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (e) => {
      if (!failed) reject(new HttpError(400, e.message));
      failed = true;
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return reject(new HttpError(400, 'The request body is not valid JSON.'));
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) return reject(new HttpError(400, 'The request body must be a JSON object.'));
      resolve(body as Record<string, unknown>);
    });
  });
}
