import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageCatalog } from './catalog';
import { Envelope } from './envelope';

/**
 * The compatibility test of the message contracts: messages recorded from earlier versions
 * (fixtures/README.md) must still parse with today's schemas, so that services can be deployed one
 * at a time. "Parse" includes keeping every field: a consumer that forwards a payload (the notifier's
 * webhook carries the Task as intake sent it) must not lose what a schema no longer names.
 */
const FIXTURES = join(__dirname, 'fixtures');

const recorded = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((folder) =>
    readdirSync(join(FIXTURES, folder.name))
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({
        name: `${folder.name}/${file}`,
        routingKey: folder.name,
        message: JSON.parse(readFileSync(join(FIXTURES, folder.name, file), 'utf8')) as unknown,
      })),
  );

describe('messages recorded from earlier versions', () => {
  it('include at least one of every message in the catalog', () => {
    const withoutRecording = [...messageCatalog.keys()].filter((routingKey) => !recorded.some((message) => message.routingKey === routingKey));
    expect(withoutRecording).toEqual([]);
  });

  it.each(recorded.map((message) => [message.name, message] as const))('%s still parses, with nothing of it lost', (_name, { routingKey, message }) => {
    const envelope = Envelope.parse(message);
    expect(`${envelope.type}.v${envelope.version}`).toBe(routingKey);
    const payload = messageCatalog.get(routingKey)!.payload.safeParse(envelope.payload);
    expect(payload.error?.issues ?? []).toEqual([]);
    expect(payload.data).toEqual(envelope.payload);
  });
});
