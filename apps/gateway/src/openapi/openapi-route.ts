import type { RequestHandler } from 'express';
import { openApiDocument, type OpenApiDocument } from './openapi-document';

/** Serialized answers kept per server address; Host is the caller's to choose, so only a few. */
const MAX_CACHED_SERVERS = 16;

/**
 * `GET /api/openapi.json`: the document is built once (it took 15-18 ms, on the event loop, per
 * request), and answered with the server address the request came to (`servers`, from its protocol
 * and Host). The answers of the last few addresses are kept serialized.
 */
export function openApiRoute(options: { fallbackHost?: string; build?: (serverUrl: string) => OpenApiDocument } = {}): RequestHandler {
  let document: OpenApiDocument | undefined;
  const answers = new Map<string, string>();
  return (req, res) => {
    const serverUrl = `${req.protocol}://${req.get('host') ?? options.fallbackHost ?? '127.0.0.1'}`;
    let answer = answers.get(serverUrl);
    if (answer === undefined) {
      document ??= (options.build ?? ((url: string) => openApiDocument({ serverUrl: url })))(serverUrl);
      answer = JSON.stringify({ ...document, servers: [{ url: serverUrl }] });
      const oldest = answers.keys().next();
      if (answers.size >= MAX_CACHED_SERVERS && !oldest.done) answers.delete(oldest.value);
      answers.set(serverUrl, answer);
    }
    res.type('application/json').send(answer);
  };
}
