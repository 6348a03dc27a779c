import { instrumentForTracing } from './tracing';

// Imported first by each service's main.ts (`import '@bedrequest/observability/instrument'`): the
// instrumentations' hooks must be in place before express, pg, ioredis or node:http are required,
// and a bundle requires its packages in the order of its imports. Does nothing unless tracing is on.
instrumentForTracing();
