import { createHash } from 'node:crypto';

/**
 * A UUID derived from the request identifier and a resource's role, so that every version of a
 * request gives its resources the same ids (a supplement changes what they say, not which they are)
 * and the same form built twice is the same JSON, which the service takes as a retry
 * (docs/decisions.md, "Requests"). The layout of a version 4 UUID, so that strict parsers accept it.
 */
export function formUuid(...seed: string[]): string {
  const hex = createHash('sha256').update(seed.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const urnUuid = (uuid: string) => `urn:uuid:${uuid}`;
