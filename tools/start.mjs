// `npm start`: checks that PostgreSQL, Redis and RabbitMQ answer, builds the services and the stack
// launcher (tools/prepare-stack.mjs), and hands over to the launcher's `npm start`
// (tools/stack/src/main.ts): the six services in the foreground with one readable, prefixed
// log stream, the addresses of the API and the clinic inbox once every service is ready, and a
// graceful stop on Ctrl-C (or SIGTERM).
import { developmentByDefault, prepareStack, sayAs } from './prepare-stack.mjs';

developmentByDefault();
await import(await prepareStack(sayAs('start'), 'main.cjs'));
