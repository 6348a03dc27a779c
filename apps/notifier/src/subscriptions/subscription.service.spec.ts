import { HttpError } from '@bedrequest/http';
import type { StoredSubscription, SubscriptionRepository } from './subscription.repository';
import { SubscriptionService } from './subscription.service';

function repositoryDouble() {
  const stored: StoredSubscription[] = [];
  return {
    stored,
    createIfAbsent: jest.fn(async (subscription: Omit<StoredSubscription, 'status' | 'disabledReason'>) => {
      const created: StoredSubscription = { ...subscription, status: 'active', disabledReason: null };
      stored.push(created);
      return created;
    }),
    changeAddress: jest.fn(async () => undefined),
    find: jest.fn(async () => undefined),
    delete: jest.fn(async () => false),
  };
}

describe('SubscriptionService request validation', () => {
  const setup = (allowPrivate = true, requireHttps = false) => {
    const repository = repositoryDouble();
    const resolve = jest.fn(async () => [{ address: '10.0.0.7', family: 4 }]);
    const sut = new SubscriptionService(repository as unknown as SubscriptionRepository, { allowPrivate, requireHttps, resolve });
    return { sut, repository, resolve };
  };

  it.each([
    [{ eventType: 'TaskUpdated', callbackUrl: 'https://hooks.example.org/' }, 'eventType: must be one of AdmissionResponse, AdmissionOverdue'],
    [{ callbackUrl: 'https://hooks.example.org/' }, 'eventType: is required'],
    [{ eventType: 'TaskUpdated' }, 'eventType: must be one of AdmissionResponse, AdmissionOverdue; callbackUrl: is required'],
    [{ eventType: 'AdmissionResponse' }, 'callbackUrl: is required'],
    [{ eventType: 'AdmissionResponse', callbackUrl: '   ' }, 'callbackUrl: must not be empty'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 42 }, 'callbackUrl: must be a string'],
    [{ eventType: 'AdmissionResponse', callbackUrl: `https://hooks.example.org/${'x'.repeat(2048)}` }, 'callbackUrl: must be at most 2048 characters'],
    [{ eventType: 'AdmissionResponse', callbackUrl: '/relative/path' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'ftp://hooks.example.org/x' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'javascript:alert(1)' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://user:pw@hooks.example.org/' }, 'callbackUrl: must not contain credentials'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://user@hooks.example.org/' }, 'callbackUrl: must not contain credentials'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/', secret: 'mine' }, 'secret: not allowed'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/', extra: true, other: 1 }, 'extra: not allowed; other: not allowed'],
    [['AdmissionResponse'], 'body: must be a JSON object'],
    [null, 'body: must be a JSON object'],
    ['AdmissionResponse', 'body: must be a JSON object'],
  ])('refuses the subscription %j naming each refused field: %s', async (body, message) => {
    const { sut, repository } = setup();
    await expect(sut.subscribe('party-1', body)).rejects.toThrow(new HttpError('invalid_request', message));
    expect(repository.createIfAbsent).not.toHaveBeenCalled();
  });

  it('keeps the callback URL as sent, without surrounding white space', async () => {
    const { sut } = setup();
    const { subscription } = await sut.subscribe('party-1', { eventType: 'AdmissionResponse', callbackUrl: '  https://Hooks.example.org/a?b=c  ' });
    expect(subscription).toMatchObject({ eventType: 'AdmissionResponse', callbackUrl: 'https://Hooks.example.org/a?b=c' });
  });

  it('refuses a callback host that resolves to a private address in production mode', async () => {
    const { sut, resolve } = setup(false);
    await expect(sut.subscribe('party-1', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/' })).rejects.toThrow(
      'callbackUrl refused: the callback address resolves to a private address',
    );
    expect(resolve).toHaveBeenCalledWith('hooks.example.org');
  });

  it('refuses an http:// callback URL when https is required, before asking DNS', async () => {
    const { sut, repository, resolve } = setup(false, true);
    const refusal = 'callbackUrl: must be an https URL: this service sends webhooks over https only';
    await expect(sut.subscribe('party-1', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/' })).rejects.toThrow(refusal);
    await expect(sut.changeAddress('party-1', '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', { callbackUrl: 'http://hooks.example.org/b' })).rejects.toThrow(refusal);
    expect(resolve).not.toHaveBeenCalled();
    expect(repository.createIfAbsent).not.toHaveBeenCalled();
    expect(repository.changeAddress).not.toHaveBeenCalled();
  });

  it('validates the body of a change of address', async () => {
    const { sut } = setup();
    const id = '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01';
    await expect(sut.changeAddress('party-1', id, { callbackUrl: 'not a url' })).rejects.toThrow('callbackUrl: must be an absolute http or https URL');
    await expect(sut.changeAddress('party-1', id, { callbackUrl: 'https://hooks.example.org/', eventType: 'AdmissionResponse' })).rejects.toThrow(
      'eventType: not allowed',
    );
  });

  it.each(['not-a-uuid', '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e0'])('finds no subscription %j without asking the database', async (id) => {
    const { sut, repository } = setup();
    await expect(sut.get('party-1', id)).resolves.toBeUndefined();
    await expect(sut.changeAddress('party-1', id, { callbackUrl: 'https://hooks.example.org/' })).resolves.toBeUndefined();
    await expect(sut.remove('party-1', id)).resolves.toBe(false);
    expect(repository.find).not.toHaveBeenCalled();
    expect(repository.delete).not.toHaveBeenCalled();
  });

  it('looks subscription ids up in either case', async () => {
    const { sut, repository } = setup();
    await sut.get('party-1', '7D0C1F4E-2B8A-4C11-9E5F-0A6B3C2D1E01');
    expect(repository.find).toHaveBeenCalledWith('party-1', '7D0C1F4E-2B8A-4C11-9E5F-0A6B3C2D1E01');
  });
});
