import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

describe('the V8 options of the service processes', () => {
  const { nodeOptions } = JSON.parse(readFileSync(join(root, 'tools', 'service-node-options.json'), 'utf8')) as { nodeOptions: string[] };

  it('are the same in the Docker image as for npm start, the benchmark and the fault suite', () => {
    const command = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
    const argv = JSON.parse(command ?? '[]') as string[];
    expect(argv.slice(0, 1)).toEqual(['node']);
    expect(argv.filter((arg) => arg.startsWith('--') && arg !== '--enable-source-maps')).toEqual(nodeOptions);
  });
});
