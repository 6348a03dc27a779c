import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { DisabledPartiesAnswer } from '@bedrequest/contracts';
import { silentLogger } from '@bedrequest/testing';
import { DisabledParties } from './disabled-parties';

const answer = (...ids: string[]): DisabledPartiesAnswer => ({
  parties: ids.map((id) => ({ id, disabledAt: '2026-12-07T08:00:00.000Z' })),
  asOf: '2026-12-07T08:00:01.000Z',
});

describe('DisabledParties', () => {
  it('knows the parties of the last list read, keeps it while auth cannot be read, and takes the next one', async () => {
    const reads: (() => Promise<DisabledPartiesAnswer>)[] = [
      async () => answer('party-a'),
      async () => {
        throw new Error('auth unreachable');
      },
      async () => answer('party-b'),
    ];
    const registry = new Registry();
    const sut = new DisabledParties({ load: () => reads.shift()!(), pollIntervalMs: 60_000, logger: silentLogger(), registry });

    await sut.refresh();
    expect([sut.isDisabled('party-a'), sut.isDisabled('party-b')]).toEqual([true, false]);
    await sut.refresh();
    expect([sut.isDisabled('party-a'), sut.isDisabled('party-b')]).toEqual([true, false]);
    await sut.refresh();
    // Enabled again (left the list), and another disabled.
    expect([sut.isDisabled('party-a'), sut.isDisabled('party-b')]).toEqual([false, true]);
    expect(await registry.getSingleMetricAsString('webhook_disabled_parties_age_seconds')).toMatch(/webhook_disabled_parties_age_seconds \d/);
  });

  it('starts without the list when auth does not answer in time, and withholds nothing until it does', async () => {
    const sut = new DisabledParties({ load: () => new Promise(() => undefined), pollIntervalMs: 60_000, logger: silentLogger(), startTimeoutMs: 20 });
    await sut.start();
    expect(sut.isDisabled('party-a')).toBe(false);
    await sut.stop();
  });

  it('polls quietly while auth starts beside it, and warns once only when it has not answered within the grace', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger(), warn: (message: unknown) => void warnings.push(String(message)), info: () => undefined } as unknown as Logger;
    let up = false;
    const load = async () => {
      if (!up) throw new Error('auth unreachable');
      return answer('party-a');
    };
    const starting = new DisabledParties({ load, pollIntervalMs: 10, logger, startTimeoutMs: 20, startGraceMs: 200 });
    await starting.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    up = true;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect([starting.isDisabled('party-a'), warnings]).toEqual([true, []]);
    await starting.stop();

    up = false;
    const never = new DisabledParties({ load, pollIntervalMs: 10, logger, startTimeoutMs: 20, startGraceMs: 100 });
    await never.start();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(warnings).toEqual(['started without the list of disabled parties: auth has not answered yet; webhooks go out unchecked until it does']);
    await never.stop();
  });
});
