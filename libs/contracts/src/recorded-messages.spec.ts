import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageCatalog } from './catalog';
import { Envelope } from './envelope';

/**
 * The compatibility test of the message contracts (docs/compatibility.md): the messages recorded
 * from each release (`fixtures/<release>/<type>.v<version>/*.json`, fixtures/README.md) must still
 * parse with today's schemas, so that services can be deployed one at a time. "Parse" includes
 * keeping every field: a consumer that forwards a payload (the notifier's webhook carries the Task
 * as intake sent it) must not lose what a schema no longer names.
 */
const FIXTURES = join(__dirname, 'fixtures');

const foldersIn = (path: string) =>
  readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

const releases = foldersIn(FIXTURES);

const recorded = releases.flatMap((release) =>
  foldersIn(join(FIXTURES, release)).flatMap((routingKey) =>
    readdirSync(join(FIXTURES, release, routingKey))
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({
        name: `${release}/${routingKey}/${file}`,
        routingKey,
        message: JSON.parse(readFileSync(join(FIXTURES, release, routingKey, file), 'utf8')) as unknown,
      })),
  ),
);

describe('messages recorded from the releases', () => {
  it('come in one folder per release, 1.0 the first', () => {
    expect(releases[0]).toBe('1.0');
    expect(releases.filter((release) => !/^\d+\.\d+$/.test(release))).toEqual([]);
  });

  it('include at least one of every message in the catalog', () => {
    const withoutRecording = [...messageCatalog.keys()].filter((routingKey) => !recorded.some((message) => message.routingKey === routingKey));
    expect(withoutRecording).toEqual([]);
  });

  it.each(recorded.map((message) => [message.name, message] as const))('%s still parses, with nothing of it lost', (_name, { routingKey, message }) => {
    const envelope = Envelope.parse(message);
    expect(`${envelope.type}.v${envelope.version}`).toBe(routingKey);
    const definition = messageCatalog.get(routingKey);
    expect(definition?.routingKey).toBe(routingKey);
    const payload = definition!.payload.safeParse(envelope.payload);
    expect(payload.error?.issues ?? []).toEqual([]);
    expect(payload.data).toEqual(envelope.payload);
  });
});
