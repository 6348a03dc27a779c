import { IF_MATCH_MAX_TAGS, TASK_TAG_MAX_LENGTH } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';

/** What an `If-Match` asks: nothing (absent, or `*` for a Task that exists), or one of these opaque tags. */
export type Precondition = { kind: 'none' } | { kind: 'tags'; tags: string[] };

/** RFC 9110 §8.8.3: `[W/]"<etagc>*"`, etagc being %x21 / %x23-7E / obs-text. */
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/y;
const LIST_SEPARATORS = /[ \t]*(,[ \t]*)*/y;

/**
 * The `If-Match` of a clinic's answer (RFC 9110 §13.1.1, docs/api.md "Clinic API"): `*` or a list
 * of entity tags, compared weakly: `W/` is dropped, the opaque tags are what intake compares with the
 * Task's. Anything else, more than IF_MATCH_MAX_TAGS tags or one over TASK_TAG_MAX_LENGTH is 400.
 */
export function preconditionOf(header: string | undefined): Precondition {
  if (header === undefined) return { kind: 'none' };
  const value = header.trim();
  // `*`: any current Task; one that does not exist is 404 anyway.
  if (value === '*') return { kind: 'none' };
  const tags: string[] = [];
  let position = 0;
  const skipSeparators = () => {
    LIST_SEPARATORS.lastIndex = position;
    LIST_SEPARATORS.exec(value);
    position = LIST_SEPARATORS.lastIndex;
  };
  skipSeparators();
  while (position < value.length) {
    ENTITY_TAG.lastIndex = position;
    const tag = ENTITY_TAG.exec(value);
    if (!tag) throw malformed('If-Match: a list of entity tags ("<tag>" or W/"<tag>"), or *');
    tags.push(tag[2] ?? '');
    position = ENTITY_TAG.lastIndex;
    const before = position;
    skipSeparators();
    if (position < value.length && !value.slice(before, position).includes(',')) throw malformed('If-Match: entity tags are separated by commas');
  }
  if (tags.length === 0) throw malformed('If-Match: a list of entity tags ("<tag>" or W/"<tag>"), or *');
  if (tags.length > IF_MATCH_MAX_TAGS) throw malformed(`If-Match: at most ${IF_MATCH_MAX_TAGS} entity tags`);
  if (tags.some((tag) => tag.length > TASK_TAG_MAX_LENGTH)) throw malformed(`If-Match: an entity tag of at most ${TASK_TAG_MAX_LENGTH} characters`);
  return { kind: 'tags', tags };
}

function malformed(message: string): HttpError {
  return new HttpError('invalid_request', message);
}
