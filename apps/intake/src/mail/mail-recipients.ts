import { MailRecipients } from '@bedrequest/contracts';
import { InternalClient, type TokenSource } from '@bedrequest/http';

/** Whom a mail goes to: the people of the party who asked for it now, as auth says (docs/operations.md, "E-mail"). */
export interface RecipientDirectory {
  addressesOf(party: { partyId: string } | { clinicIk: string }): Promise<string[]>;
  close(): Promise<void>;
}

/** Auth's `GET /internal/mail-recipients`, asked with intake's service token at every mail. */
export class AuthRecipientDirectory implements RecipientDirectory {
  private readonly auth: InternalClient;

  constructor(
    authUrl: string,
    private readonly serviceTokens: TokenSource,
  ) {
    this.auth = new InternalClient({
      service: 'auth',
      baseUrl: authUrl,
      timeoutMs: 10_000,
      unavailableMessage: 'the mail recipients are unavailable',
      connections: 1,
    });
  }

  async addressesOf(party: { partyId: string } | { clinicIk: string }): Promise<string[]> {
    const query = new URLSearchParams('partyId' in party ? { party: party.partyId } : { ik: party.clinicIk });
    const answer = await this.auth.json({ method: 'GET', path: '/internal/mail-recipients', query, credential: this.serviceTokens }, { 200: MailRecipients });
    return answer.body.addresses;
  }

  close(): Promise<void> {
    return this.auth.close();
  }
}
