import type { Server } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { jsonErrorHandler } from '@bedrequest/http';
import type { Redis } from 'ioredis';
import { createServiceHttpApp, serveHttp, serveProbes, startService, waitForDependency, type ServiceContext, type Started } from '@bedrequest/observability';
import { closeRedis, openRedis } from '@bedrequest/persistence';
import type { WebConfig } from './config';
import { InboxApi } from './inbox/inbox-api';
import { inboxRouter } from './inbox/inbox.router';
import { workspaceRouter } from './workspace/workspace.router';
import { csrfSecretOf } from './session/csrf';
import { SessionStore } from './session/session-store';
import { GuardedFetch } from './sandbox/guarded-fetch';
import { HeldAnswers } from './sandbox/held-answers';
import { ReceiverStore } from './sandbox/receiver-store';
import { receiverRouter } from './sandbox/receiver.router';
import type { InspectorOptions } from './sandbox/inspector-routes';

export type RunningWeb = Started<{
  readonly server: Server;
  /** The pages' address (WEB_PORT=0 picks a free port). */
  readonly url: string;
  /** The internal address (WEB_INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

/**
 * The web app (docs/architecture.md): the clinic inbox under /inbox/, a backend-for-frontend that
 * reads and writes through the gateway's public API with the person's token, like any client. It
 * holds nothing in memory that another process would need: sessions live in Redis.
 */
export function startWeb(config: WebConfig): Promise<RunningWeb> {
  return startService('web', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const redis = openRedis(config, logger);
    lifecycle.onStop('redis', () => closeRedis(redis));
    // The CSRF key may have to be read from Redis: wait for it like for any dependency at start.
    const csrfSecret = await waitForDependency(() => csrfSecretOf(config, redis), {
      logger,
      describe: (error) => ({ what: 'Redis', reason: error instanceof Error ? error.message : String(error) }),
      giveUpAfterMs: config.STARTUP_TIMEOUT_MS,
    });
    const api = new InboxApi(config.GATEWAY_URL);
    lifecycle.onStop('api client', () => api.close());

    // The inspector's list polls every 1.5 s: its answered polls are not logged.
    const app = createServiceHttpApp({
      logger,
      registry,
      trustedProxies: config.TRUSTED_PROXIES,
      polledPaths: config.SANDBOX ? ['/workspace/sandbox/webhooks/updates'] : [],
    });
    if (config.SANDBOX) app.use(sandboxEnvironmentHeader);
    app.use(helmet());
    app.get('/', (_req, res) => res.redirect(303, '/inbox/'));
    // The clinic inbox and the hospital's workspace: the same API client, session store and keys.
    const pages = {
      api,
      sessions: new SessionStore(redis, { idleSeconds: config.WEB_SESSION_IDLE_SECONDS, lifetimeSeconds: config.WEB_SESSION_LIFETIME_SECONDS }),
      refreshMarginMs: config.WEB_SESSION_REFRESH_MARGIN_SECONDS * 1000,
      csrfSecret,
      nodeEnv: config.NODE_ENV,
      profileBase: config.PROFILE_BASE,
      sandbox: config.SANDBOX,
      logger,
    };
    app.use('/inbox', inboxRouter(pages));
    // The webhook inspector's receivers and pages, in a sandbox only (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)").
    const held = new HeldAnswers();
    const inspector = config.SANDBOX ? sandboxInspector(config, redis, context) : undefined;
    if (inspector) app.use(receiverRouter({ store: inspector.store, held, logger, api, publicUrl: inspector.publicUrl }));
    // The hospital's workspace: its social service's requests (docs/workspace.md).
    app.use('/workspace', workspaceRouter({ ...pages, ...(inspector ? { inspector } : {}) }));
    app.use((_req, res) => {
      res.status(404).type('text/plain').send('Not found. The clinic inbox is at /inbox/, the hospital workspace at /workspace/.');
    });

    const internal = await serveProbes(context, {
      readiness: { redis: () => redis.status === 'ready' },
      host: config.HOST,
      port: config.WEB_INTERNAL_PORT,
      after: [jsonErrorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.WEB_PORT });
    // Stopped before the server (closers run in reverse): the answers held on purpose must not keep it open.
    lifecycle.onStop('held webhook answers', async () => held.releaseAll());
    return { server, url, internalUrl: internal.url };
  });
}

/** The inspector's receivers in the web app's Redis, and what its receiver check sends with. */
function sandboxInspector(config: WebConfig, redis: Redis, context: ServiceContext): InspectorOptions {
  // Private receiver addresses are for a sandbox on a developer's machine, as the notifier's WEBHOOK_ALLOW_PRIVATE default.
  const checks = new GuardedFetch(config.NODE_ENV !== 'production');
  context.lifecycle.onStop('receiver checks', () => checks.close());
  return { store: new ReceiverStore(redis), publicUrl: config.WEB_PUBLIC_URL, fetchImpl: checks.fetch };
}

/** Every answer of a sandbox's web app says so, as the gateway's do (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"). */
const sandboxEnvironmentHeader: RequestHandler = (_req, res, next) => {
  res.setHeader('Bedrequest-Environment', 'sandbox');
  next();
};
