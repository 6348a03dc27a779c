import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { checkSignature, isWebhookSecret } from './signature-check';

const secretOf = () => `whsec_${randomBytes(32).toString('base64')}`;
const BODY = Buffer.from('{"id":"evt-1","type":"AdmissionResponse","sequence":1,"data":{}}');

/** The headers the notifier sends: `webhook-signature` may carry several signatures (a rotation). */
function signed(secrets: readonly string[], at = new Date(), body = BODY): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign('evt-1', at, body));
  return { 'webhook-id': 'evt-1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures.join(' ') };
}

describe("the inspector's signature check", () => {
  const response = secretOf();
  const entered = secretOf();

  it('is valid with the secret that signed, naming it, whichever of the known ones it is', () => {
    expect(checkSignature(BODY, signed([response]), [{ label: 'AdmissionResponse', secret: response }])).toEqual({
      state: 'valid',
      secretLabel: 'AdmissionResponse',
    });
    const known = [
      { label: 'AdmissionResponse', secret: response },
      { label: 'entered', secret: entered },
    ];
    expect(checkSignature(BODY, signed([entered]), known)).toEqual({ state: 'valid', secretLabel: 'entered' });
    // During a rotation the header carries the new secret's signature and the old one's: either verifies.
    expect(checkSignature(BODY, signed([secretOf(), entered]), known)).toEqual({ state: 'valid', secretLabel: 'entered' });
  });

  it('is invalid for another secret, a changed body, and missing or malformed headers', () => {
    const known = [{ label: 'AdmissionResponse', secret: response }];
    expect(checkSignature(BODY, signed([secretOf()]), known)).toEqual({ state: 'invalid', reason: 'no-match' });
    expect(checkSignature(Buffer.from(`${BODY.toString()} `), signed([response]), known)).toEqual({ state: 'invalid', reason: 'no-match' });
    const unsigned = Object.fromEntries(Object.entries(signed([response])).filter(([name]) => name !== 'webhook-signature'));
    expect(checkSignature(BODY, unsigned, known)).toEqual({ state: 'invalid', reason: 'missing-headers' });
    expect(checkSignature(BODY, { ...signed([response]), 'webhook-timestamp': 'yesterday' }, known)).toEqual({ state: 'invalid', reason: 'missing-headers' });
  });

  it('is stale for a timestamp more than 5 minutes off, saying whether the signature itself matches', () => {
    const known = [{ label: 'AdmissionResponse', secret: response }];
    const old = new Date(Date.now() - 6 * 60_000);
    expect(checkSignature(BODY, signed([response], old), known)).toEqual({ state: 'stale', signatureMatches: true, secretLabel: 'AdmissionResponse' });
    expect(checkSignature(BODY, signed([response], new Date(Date.now() + 6 * 60_000)), known)).toMatchObject({ state: 'stale', signatureMatches: true });
    expect(checkSignature(BODY, signed([secretOf()], old), known)).toEqual({ state: 'stale', signatureMatches: false });
    // Within the window it is no replay.
    expect(checkSignature(BODY, signed([response], new Date(Date.now() - 4 * 60_000)), known)).toMatchObject({ state: 'valid' });
  });

  it('says no secret is known when there is none to check with, and checks a body that is no JSON all the same', () => {
    expect(checkSignature(BODY, signed([response]), [])).toEqual({ state: 'no-secret' });
    const text = Buffer.from('not json at all');
    expect(checkSignature(text, signed([response], new Date(), text), [{ label: 'entered', secret: response }])).toEqual({
      state: 'valid',
      secretLabel: 'entered',
    });
  });

  it('takes whsec_ and the base64 of 24 to 64 bytes as a secret, and nothing else', () => {
    expect(isWebhookSecret(response)).toBe(true);
    expect(isWebhookSecret(`whsec_${randomBytes(24).toString('base64')}`)).toBe(true);
    expect(isWebhookSecret(`whsec_${randomBytes(16).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(`whsec_${randomBytes(65).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(response.slice('whsec_'.length))).toBe(false);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
    expect(isWebhookSecret('whsec_')).toBe(false);
  });
});
