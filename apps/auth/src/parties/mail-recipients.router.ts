import { Router } from 'express';
import type { MailRecipients } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import type { PartyMemberRepository } from './party-members.repository';
import { isUuid } from './party.repository';

/**
 * `GET /internal/mail-recipients?party={id}` or `?ik={ik}` (mounted at /internal; never proxied by
 * the gateway): the addresses of the people of a party, or of the clinic party with that IK number,
 * who want e-mail about its requests and are not disabled, nor is their party (docs/operations.md,
 * "E-mail"). Intake asks at every mail it sends, so that an opt-out or a disable counts at once. Service
 * tokens only: 401 without one, 403 for a party's; 400 without exactly one of the two; an unknown
 * party has nobody: `{addresses: []}`.
 */
export function mailRecipientsRouter(options: { members: PartyMemberRepository; services: TokenVerifier }): Router {
  const router = Router();
  router.get('/mail-recipients', requireToken({ verifier: options.services, services: true }), async (req, res) => {
    const { party, ik } = req.query;
    if (typeof party === 'string' && ik === undefined) {
      const addresses = isUuid(party) ? await options.members.mailRecipients({ id: party }) : [];
      return res.json({ addresses } satisfies MailRecipients);
    }
    if (typeof ik === 'string' && party === undefined && /^\d{9}$/.test(ik)) {
      return res.json({ addresses: await options.members.mailRecipients({ ik }) } satisfies MailRecipients);
    }
    throw new HttpError('invalid_request', 'name exactly one of party (a party id) and ik (a nine-digit IK number)');
  });
  return router;
}
