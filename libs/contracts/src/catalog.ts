import type { MessageDefinition } from './envelope';
import { AdmissionBundleSubmittedV1 } from './messages/admission-bundle-submitted';
import { AdmissionOverdueV1 } from './messages/admission-overdue';
import { AdmissionResponseV1 } from './messages/admission-response';
import { ClinicAnswerSubmittedV1 } from './messages/clinic-answer-submitted';
import { ClinicRegistryChangedV1 } from './messages/clinic-registry-changed';
import { DocumentBundleSubmittedV1 } from './messages/document-bundle-submitted';
import { IntakeVerdictV1 } from './messages/intake-verdict';
import { RequestDispatchedV1 } from './messages/request-dispatched';
import { RequestErasedV1 } from './messages/request-erased';

const definitions = [
  AdmissionBundleSubmittedV1,
  DocumentBundleSubmittedV1,
  ClinicAnswerSubmittedV1,
  IntakeVerdictV1,
  RequestDispatchedV1,
  AdmissionResponseV1,
  AdmissionOverdueV1,
  ClinicRegistryChangedV1,
  RequestErasedV1,
] as const;

/** The definition of each message of the catalog, as a type: handler maps are keyed by their routing keys. */
export type CatalogMessage = (typeof definitions)[number];

/** Every message the services exchange, by routing key. Publish and consume both check against it. */
export const messageCatalog: ReadonlyMap<string, MessageDefinition> = new Map<string, MessageDefinition>(
  definitions.map((definition) => [definition.routingKey, definition]),
);

export function findMessageDefinition(type: string, version: number): MessageDefinition | undefined {
  return messageCatalog.get(`${type}.v${version}`);
}
