import { createHash } from 'node:crypto';

/**
 * A UUID derived from a seed, so that a fixture built twice with the same options is the same JSON
 * (docs/decisions.md treats an identical bundle as a retry) while different requests never share ids.
 */
export function seededUuid(...seed: string[]): string {
  const hex = createHash('sha256').update(seed.join('\u0000')).digest('hex');
  // Version 4 layout (version nibble 4, variant bits 10) so strict UUID parsers accept it.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const urnUuid = (uuid: string) => `urn:uuid:${uuid}`;
