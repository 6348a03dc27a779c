import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { CallbackAddressRefusedError, forbiddenAddressReason, guardedLookup, systemResolve } from '@bedrequest/http';

const SUBJECT = 'the receiver address';

/**
 * The fetch the receiver check sends with from the web app (checkReceiver's `fetchImpl`): the person
 * names the address, so it goes through the notifier's address guard (docs/webhooks.md, "Address
 * guard"): in production mode only public addresses, checked at every new connection after DNS
 * resolution and, for an IP literal (which skips the lookup), before every request. Elsewhere
 * (development, test: a receiver on the developer's machine) private addresses are allowed, as the
 * notifier allows them there.
 */
export class GuardedFetch {
  private readonly agent: Agent;

  constructor(private readonly allowPrivate: boolean) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(systemResolve, { allowPrivate, subject: SUBJECT }) } });
  }

  readonly fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const reason = !this.allowPrivate && isIP(host) ? forbiddenAddressReason(host) : undefined;
    if (reason) throw new CallbackAddressRefusedError(`${SUBJECT} resolves to a ${reason}`);
    // undici's own fetch, for its dispatcher; its Response is the one the global fetch returns.
    return undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: this.agent }) as unknown as Response;
  }) as typeof fetch;

  close(): Promise<void> {
    return this.agent.close();
  }
}
