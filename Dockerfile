# One multi-stage image for all six services and the provisioning job; SERVICE selects which.
#   docker build --build-arg SERVICE=gateway -t bedrequest-gateway .
#   docker build --build-arg SERVICE=provision -t bedrequest-provision .
# docker-compose.yml builds it once per service and once for provisioning. The last line picks the
# final stage by SERVICE; BuildKit (Docker's builder since Engine 23) builds only the stages it needs.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG SERVICE

FROM ${NODE_IMAGE} AS build
WORKDIR /repo
ENV NX_NO_CLOUD=true NX_DAEMON=false CI=true
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY . .
ARG SERVICE
# Only the packages this SERVICE's bundles require (the service's main.cjs and, for auth, intake,
# routing and the notifier, cli-main.cjs: their part of the admin command line), with their
# production dependencies (tools/deploy/runtime-files.mjs: about 35 MiB instead of all node_modules;
# 17-20 MiB without the OpenTelemetry SDK, which a service loads only when tracing is on).
RUN npx nx run ${SERVICE}:build --outputStyle=static \
 && npm prune --omit=dev \
 && node tools/deploy/runtime-files.mjs dist/*/${SERVICE}/*.cjs /runtime

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ENV NODE_ENV=production SERVICE=${SERVICE} HOST=0.0.0.0
WORKDIR /app
COPY --from=build /runtime/node_modules ./node_modules

FROM runtime AS service
ARG SERVICE
COPY --from=build /repo/dist/apps/${SERVICE} ./
COPY tools/docker/healthcheck.cjs ./healthcheck.cjs
USER node
HEALTHCHECK --interval=5s --timeout=3s --retries=30 CMD ["node", "healthcheck.cjs"]
# The V8 options of tools/service-node-options.json (a 4 MiB semi-space: see there why).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=4", "main.cjs"]

# The provisioning job (docs/operations.md, "Provisioning"): runs once and exits, so it has no
# health check; compose waits for it to complete, not to be healthy.
FROM runtime AS provision
COPY --from=build /repo/dist/tools/provision ./
# It applies each schema's migrations from <working directory>/apps/<service>/prisma/migrations.
COPY apps/auth/prisma/migrations ./apps/auth/prisma/migrations
COPY apps/intake/prisma/migrations ./apps/intake/prisma/migrations
COPY apps/routing/prisma/migrations ./apps/routing/prisma/migrations
COPY apps/notifier/prisma/migrations ./apps/notifier/prisma/migrations
USER node
CMD ["node", "--enable-source-maps", "main.cjs", "provision"]

# The final stages by SERVICE; without it, the build stops saying so.
FROM ${NODE_IMAGE} AS missing-image
RUN echo "--build-arg SERVICE=<gateway|web|auth|intake|routing|notifier|provision> is required" && false

FROM service AS gateway-image
FROM service AS web-image
FROM service AS auth-image
FROM service AS intake-image
FROM service AS routing-image
FROM service AS notifier-image
FROM provision AS provision-image

FROM ${SERVICE:-missing}-image
