// The baselines of figure 1, in a process of their own like the gateway:
//   express <port>: a bare express route that parses the same FHIR JSON body and answers 202;
//   http <port>:    node:http hello world.
import { createServer } from 'node:http';
import express from 'express';

const [mode, port] = [process.argv[2], Number(process.argv[3])];
if (mode === 'express') {
  const app = express();
  app.post('/api/v2/fhir/Bundle', express.json({ type: ['application/fhir+json', 'application/json'], limit: 10 * 1024 * 1024 }), (_req, res) => {
    res.status(202).end();
  });
  app.listen(port, '127.0.0.1', () => process.send?.('ready'));
} else {
  createServer((_req, res) => res.end('hello world')).listen(port, '127.0.0.1', () => process.send?.('ready'));
}
