import { request as httpRequest } from 'node:http';

export interface PageAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A browser's requests as a plain HTTP client, for what Chromium cannot do: connect from a chosen
 * address (`localAddress`, any of 127.0.0.0/8), or open a new connection for every request (behind a
 * balancer that takes turns per connection). Keeps the cookies the pages set, as a browser does.
 */
export class HttpBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    private readonly localAddress?: string,
  ) {}

  get(path: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
    return this.send('GET', path, headers);
  }

  /** A form post as the browser sends it from one of the pages (same origin). */
  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
    return this.send(
      'POST',
      path,
      { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl, ...headers },
      new URLSearchParams(fields).toString(),
    );
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<PageAnswer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return new Promise((resolve, reject) => {
      const options = {
        method,
        agent: false,
        ...(this.localAddress ? { localAddress: this.localAddress } : {}),
        headers: { connection: 'close', ...(cookie ? { cookie } : {}), ...headers },
      };
      const req = httpRequest(`${this.baseUrl}${path}`, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair = ''] = line.split(';');
            const separator = pair.indexOf('=');
            const [name, value] = [pair.slice(0, separator).trim(), pair.slice(separator + 1).trim()];
            if (value) this.cookies.set(name, value);
            else this.cookies.delete(name);
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** The CSRF token of a page's first form. */
export const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
