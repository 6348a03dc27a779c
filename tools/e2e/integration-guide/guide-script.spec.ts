import { guideAddresses, guideCommands, guideScript, readGuide } from './guide-script';

describe('the guide test’s reading of docs/integration.md', () => {
  const markdown = [
    '# Guide',
    '```console',
    '$ npm run sandbox',
    '```',
    '```sh',
    'API=http://127.0.0.1:8180',
    'WEB=http://127.0.0.1:8185',
    '```',
    'Text.',
    '```sh',
    'curl -sf "$API/x"',
    '```',
    '```json',
    '{}',
    '```',
  ].join('\n');

  it('takes the sh blocks alone, in order', () => {
    expect(guideCommands(markdown)).toEqual(['API=http://127.0.0.1:8180\nWEB=http://127.0.0.1:8185\n', 'curl -sf "$API/x"\n']);
  });

  it('points the addresses at the test’s sandbox and changes nothing else', () => {
    const blocks = guideCommands(markdown);
    expect(guideAddresses(blocks)).toEqual({ api: 'http://127.0.0.1:8180', web: 'http://127.0.0.1:8185' });
    const script = guideScript(blocks, { api: 'http://127.0.0.1:1', web: 'http://127.0.0.1:2' }, ['REQUEST']);
    expect(script).toContain('set -euo pipefail\n');
    expect(script).toContain('API=http://127.0.0.1:1\nWEB=http://127.0.0.1:2\n');
    expect(script).toContain('curl -sf "$API/x"\n');
    expect(script).not.toContain('8180');
    expect(script.trimEnd().split('\n').at(-1)).toBe(`printf 'GUIDE %s=%s\\n' REQUEST "$REQUEST"`);
  });

  it('refuses a guide that no longer names its addresses', () => {
    expect(() => guideAddresses(['curl "$API"\n'])).toThrow('API=… and WEB=…');
  });

  it('finds the commands of the real guide: login, subscription, bundle, selection, SMART token, rotation', () => {
    const script = guideCommands(readGuide()).join('\n');
    for (const step of [
      '/api/v1/token/login',
      '/api/v1/subscriptions',
      '/api/v2/fhir/Bundle',
      'selected-provider',
      'client_credentials',
      'rotate-secret',
      'events?since=',
    ]) {
      expect(script).toContain(step);
    }
  });
});
