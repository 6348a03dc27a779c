import { createHash } from 'node:crypto';
import { Router } from 'express';
import { INBOX_SCRIPT } from './inbox-script';
import { INBOX_STYLE } from './inbox-style';

interface Asset {
  path: string;
  contentType: string;
  body: Buffer;
}

function asset(name: string, extension: string, contentType: string, source: string): Asset {
  const body = Buffer.from(source, 'utf8');
  // The content's hash in the name: a changed file has a new URL, so every version may be cached for good.
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}-${hash}.${extension}`, contentType, body };
}

const SCRIPT = asset('inbox', 'js', 'text/javascript; charset=utf-8', INBOX_SCRIPT);
const STYLE = asset('inbox', 'css', 'text/css; charset=utf-8', INBOX_STYLE);

/** The URLs of the script and stylesheet below the inbox's mount point. */
export function assetUrls(mount: string): { script: string; style: string } {
  return { script: `${mount}${SCRIPT.path}`, style: `${mount}${STYLE.path}` };
}

/** Serves the two assets with a year's immutable caching (RFC 8246); they hold no patient data. */
export function assetsRouter(): Router {
  const router = Router();
  for (const { path, contentType, body } of [SCRIPT, STYLE]) {
    router.get(path, (_req, res) => {
      res.status(200).set({ 'content-type': contentType, 'cache-control': 'public, max-age=31536000, immutable' }).send(body);
    });
  }
  return router;
}
