import type { RequestHandler } from 'express';

/**
 * `GET /inbox/…` → `WEB_PUBLIC_URL/inbox/…` (path and query kept): the clinic inbox moved to the web
 * app (apps/web), and its old bookmarks point here. 301, kept by browsers for a day, not for good:
 * a deployment that moves the web app again is not haunted by cached redirects.
 */
export function redirectToWeb(webPublicUrl: string): RequestHandler {
  const base = webPublicUrl.replace(/\/+$/, '');
  return (req, res) => {
    res.set('cache-control', 'max-age=86400').redirect(301, `${base}${req.originalUrl}`);
  };
}
