import type { MessageDefinition } from './envelope';
import { AdmissionBundleSubmittedV1 } from './messages/admission-bundle-submitted';
import { AdmissionResponseV1 } from './messages/admission-response';

/** Every message the services exchange, by routing key. Publish and consume both check against it. */
export const messageCatalog: ReadonlyMap<string, MessageDefinition> = new Map(
  [AdmissionBundleSubmittedV1, AdmissionResponseV1].map((definition) => [definition.routingKey, definition]),
);

export function findMessageDefinition(type: string, version: number): MessageDefinition | undefined {
  return messageCatalog.get(`${type}.v${version}`);
}
