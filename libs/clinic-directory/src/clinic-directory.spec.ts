import type { ClinicRecord } from '@bedrequest/contracts';
import { UpstreamUnavailableError } from '@bedrequest/http';
import { DependencyUnavailableError } from '@bedrequest/observability';
import { captureLogger, silentLogger } from '@bedrequest/testing';
import { ClinicDirectory, ClinicDirectoryUnavailableError, type BroadcastSubscriber } from './clinic-directory';

const clinic = (ik: string, departments: string[] = ['2300']): ClinicRecord => ({
  ik,
  name: `Klinik ${ik}`,
  departments: departments.map((code) => ({ code, specialty: 'x', display: 'x' })),
});

/** A registry that answers the given lists in turn (the last one again and again), counting reads. */
function registryWith(lists: ClinicRecord[][]) {
  const reads = { count: 0 };
  return {
    reads,
    load: async () => {
      const list = lists[Math.min(reads.count, lists.length - 1)]!;
      reads.count++;
      return list;
    },
  };
}

/** A broker stand-in that hands the directory's subscription to the test. */
function subscriber() {
  const subscriptions: Parameters<BroadcastSubscriber['subscribe']>[0][] = [];
  return { subscriptions, subscribe: async (subscription: (typeof subscriptions)[number]) => void subscriptions.push(subscription) };
}

/** What InternalClient throws when the service token cannot be fetched because auth is not up. */
const authRefused = () =>
  new UpstreamUnavailableError('the authentication service is unavailable; please retry', {
    service: 'auth',
    url: 'http://127.0.0.1:8081',
    reason: 'connect ECONNREFUSED 127.0.0.1:8081',
  });

describe('ClinicDirectory', () => {
  it('answers known clinics from memory, reading the registry once', async () => {
    const registry = registryWith([[clinic('510000001'), clinic('510000002')]]);
    const directory = new ClinicDirectory({ load: registry.load, logger: silentLogger() });
    expect([...(await directory.lookup(['510000001'])).keys()]).toEqual(['510000001']);
    expect([...(await directory.lookup(['510000002', '510000001'])).keys()]).toEqual(['510000002', '510000001']);
    expect(registry.reads.count).toBe(1);
  });

  it('reads again before calling an IK unknown, so a clinic registered a moment ago is found', async () => {
    const registry = registryWith([[clinic('510000001')], [clinic('510000001'), clinic('510000009')]]);
    const directory = new ClinicDirectory({ load: registry.load, logger: silentLogger(), unknownIkReloadIntervalMs: 50 });
    await directory.lookup(['510000001']);
    expect((await directory.lookup(['510000009'])).has('510000009')).toBe(true);
    expect((await directory.lookup(['599999999', '510000001'])).has('599999999')).toBe(false);
    expect(registry.reads.count).toBe(3);
  });

  it('reads again for unknown IKs at most once per interval: lookups meanwhile wait for that one read, which finds a clinic registered since', async () => {
    const registry = registryWith([[clinic('510000001')], [clinic('510000001'), clinic('510000009')]]);
    const directory = new ClinicDirectory({ load: registry.load, logger: silentLogger(), unknownIkReloadIntervalMs: 300 });
    await directory.lookup(['510000001']);
    const lookups = await Promise.all(
      Array.from({ length: 50 }, (_, attempt) => directory.lookup([attempt === 49 ? '510000009' : `59${String(attempt).padStart(7, '0')}`])),
    );
    expect(registry.reads.count).toBe(2);
    expect(lookups.filter((found) => found.size > 0)).toHaveLength(1);
    expect(lookups.at(-1)?.has('510000009')).toBe(true);
  });

  it('applies a change broadcast without reading the registry, and reads it all after (re)subscribing', async () => {
    const registry = registryWith([[clinic('510000001', ['2300'])]]);
    const broker = subscriber();
    const directory = new ClinicDirectory({ load: registry.load, logger: silentLogger() });
    await directory.start(broker);
    const [subscription] = broker.subscriptions;
    subscription!.onSubscribed!();
    expect((await directory.lookup(['510000001'])).get('510000001')?.departments.map((d) => d.code)).toEqual(['2300']);
    const reads = registry.reads.count;

    subscription!.handler({ envelope: { payload: { clinic: clinic('510000001', ['0300']) } } as never, definition: {} as never });

    expect((await directory.lookup(['510000001'])).get('510000001')?.departments.map((d) => d.code)).toEqual(['0300']);
    expect(registry.reads.count).toBe(reads);
    directory.stop();
  });

  it('waits at start for a registry that is not up yet, quietly when that is short', async () => {
    const captured = captureLogger();
    let attempts = 0;
    const load = async () => {
      if (++attempts < 3) throw authRefused();
      return [clinic('510000001')];
    };
    const directory = new ClinicDirectory({ load, logger: captured.logger });
    await directory.start(subscriber());
    expect(attempts).toBe(3);
    expect(directory.isLoaded()).toBe(true);
    expect(captured.text()).toBe('');
    directory.stop();
  });

  it('gives up at start with one line naming the service it waited for, having said once that it waits', async () => {
    const captured = captureLogger();
    const directory = new ClinicDirectory({
      load: async () => Promise.reject(authRefused()),
      logger: captured.logger,
      noticeAfterMs: 100,
      startTimeoutMs: 600,
    });
    const failure = await directory.start(subscriber()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect((failure as Error).message).toMatch(
      /^gave up waiting for auth at http:\/\/127\.0\.0\.1:8081 after \d\.\d s: connect ECONNREFUSED 127\.0\.0\.1:8081$/,
    );
    const lines = captured
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map((line) => line.msg)).toEqual(['waiting for auth at http://127.0.0.1:8081']);
  });

  it('says the registry is unavailable when it cannot be read', async () => {
    const directory = new ClinicDirectory({ load: async () => Promise.reject(new Error('connection refused')), logger: silentLogger() });
    await expect(directory.lookup(['510000001'])).rejects.toBeInstanceOf(ClinicDirectoryUnavailableError);
    await expect(directory.list()).rejects.toBeInstanceOf(ClinicDirectoryUnavailableError);
  });
});
