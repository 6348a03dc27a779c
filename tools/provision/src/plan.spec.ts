import { provisionPlan, serviceEnvironment } from './plan';

describe('the provisioning plan', () => {
  const admin = { database: 'postgresql://postgres@db:5432/bedrequest', amqp: 'amqp://admin:secret@mq:5672', redis: 'redis://redis:6379' };

  it('gives a service its own broker user on every node of a cluster the administrator’s AMQP URL names', () => {
    const plan = provisionPlan({ AMQP_NAMESPACE: 'plan' }, { generatePasswords: true });
    const intake = plan.broker.find((principal) => principal.service === 'intake')!;
    const { AMQP_URL } = serviceEnvironment(plan, 'intake', { ...admin, amqp: 'amqp://admin:secret@mq-0:5672,amqp://admin:secret@mq-1:5673/' });
    const nodes = AMQP_URL!.split(',').map((url) => new URL(url));
    expect(nodes.map((url) => url.host)).toEqual(['mq-0:5672', 'mq-1:5673']);
    expect(nodes.map((url) => [decodeURIComponent(url.username), decodeURIComponent(url.password)])).toEqual([
      [intake.user, intake.password],
      [intake.user, intake.password],
    ]);
    expect(AMQP_URL).not.toContain('admin:secret');
  });

  it('keeps a single broker URL a single URL', () => {
    const plan = provisionPlan({ AMQP_NAMESPACE: 'plan' }, { generatePasswords: true });
    expect(serviceEnvironment(plan, 'routing', admin).AMQP_URL).toMatch(/^amqp:\/\/[^,]+@mq:5672$/);
  });
});
