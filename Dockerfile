# One multi-stage image for all six services; SERVICE selects which one runs.
#   docker build --build-arg SERVICE=gateway -t bedrequest-gateway .
# docker-compose.yml builds it once per service.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /repo
ENV NX_NO_CLOUD=true NX_DAEMON=false CI=true
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY . .
ARG SERVICE
RUN test -n "$SERVICE" || (echo "--build-arg SERVICE=<gateway|web|auth|intake|routing|notifier> is required" && false)
RUN npx nx run ${SERVICE}:build --outputStyle=static \
 && npm prune --omit=dev

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ENV NODE_ENV=production SERVICE=${SERVICE} HOST=0.0.0.0
WORKDIR /app
COPY --from=build /repo/node_modules ./node_modules
COPY --from=build /repo/dist/apps/${SERVICE} ./
COPY tools/docker/healthcheck.cjs ./healthcheck.cjs
USER node
HEALTHCHECK --interval=5s --timeout=3s --retries=30 CMD ["node", "healthcheck.cjs"]
# The V8 options of tools/service-node-options.json (a 4 MiB semi-space: see there why).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=4", "main.cjs"]
