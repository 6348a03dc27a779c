import { z } from 'zod';
import { IkNumber } from './ik-number';

/**
 * The address a party connected to the gateway from, as the audit trail records it (at most an
 * IPv6 address with a zone: 64 characters).
 */
export const ClientAddress = z.string().min(1).max(64);

/** The authenticated referrer on whose behalf a bundle was sent (from its access token). */
export const Submitter = z.object({
  /** The access token's `sub`: the party, which owns the request. */
  partyId: z.string().min(1),
  /**
   * The person of the party who sent it (the token's `act.sub`), whom the audit trail records for
   * the change; absent from an earlier gateway, whose `partyId` was its party's only user.
   */
  userId: z.string().min(1).optional(),
  /** The person's display name, where the token names one. */
  userName: z.string().min(1).max(200).optional(),
  ikNumbers: z.array(IkNumber).min(1),
  fhirBase: z.string().min(1),
  /**
   * Where the referrer connected from, for the change's AuditEvent; absent when the
   * gateway no longer knew the connection's address.
   */
  clientAddress: ClientAddress.optional(),
});
export type Submitter = z.infer<typeof Submitter>;

/**
 * What the gateway sends with every bundle a referrer POSTed (admission.bundle.submitted,
 * document.bundle.submitted): who sent it, when, and the bundle.
 */
export const BundleSubmission = z.object({
  submitter: Submitter,
  receivedAt: z.iso.datetime({ offset: true }),
  /**
   * The bundle exactly as received, validated by the gateway against libs/fhir-model. Not typed
   * here: its rules are libs/fhir-model's, and intake stores it as it came (a zod object would
   * also put its keys in the schema's order).
   */
  bundle: z.record(z.string(), z.unknown()),
});
