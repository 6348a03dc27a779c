import { createHash } from 'node:crypto';
import { Router } from 'express';
import type { Texts } from '../texts.de';
import { INBOX_SCRIPT } from './inbox-script';
import { inboxStyle } from './inbox-style';

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

/**
 * The inbox's script and stylesheet (the stylesheet carries the list's column names, so it is made
 * for the texts' language): their URLs below the mount point, and the router that serves them with a
 * year's immutable caching (RFC 8246). They hold no patient data.
 */
export function inboxAssets(mount: string, texts: Texts): { urls: { script: string; style: string }; router: Router } {
  const script = asset('inbox', 'js', 'text/javascript; charset=utf-8', INBOX_SCRIPT);
  const style = asset(`inbox-${texts.lang}`, 'css', 'text/css; charset=utf-8', inboxStyle(texts));
  const router = Router();
  for (const { path, contentType, body } of [script, style]) {
    router.get(path, (_req, res) => {
      res.status(200).set({ 'content-type': contentType, 'cache-control': 'public, max-age=31536000, immutable' }).send(body);
    });
  }
  return { urls: { script: `${mount}${script.path}`, style: `${mount}${style.path}` }, router };
}
