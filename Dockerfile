# syntax=docker/dockerfile:1
# The service image: Node 24 (the newest LTS line CI runs the suite on; 22 is supported too), the
# service compiled to JavaScript (`npm run build`), production dependencies only (no TypeScript
# loader, no embedded PostgreSQL: DATABASE_URL is required), as the unprivileged `node` user. Needs
# DATABASE_URL (PostgreSQL 15+) and SVC_SECRET; see docker-compose.yml for a production-like setup
# with Redis, two replicas behind a load balancer and the metrics port. The build stage installs the
# workspaces too (the Studio is built there from studio/ and the SDK's sources); the image itself gets
# the service's production dependencies alone (`--workspaces=false`) and the Studio's static files.
FROM node:24-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/package.json
COPY studio/package.json ./studio/package.json
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY scripts/studio/build.mjs ./scripts/studio/build.mjs
COPY studio ./studio
COPY domain ./domain
COPY infra ./infra
COPY projections ./projections
COPY src ./src
# `svc types` renders with the SDK's renderer (sdk/src/siteTypes.ts, no dependencies of its own); the
# Studio bundles the SDK from its sources.
COPY sdk/src ./sdk/src
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_DATA_DIR=/var/lib/svc

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund && npm cache clean --force
COPY --from=build /build/dist ./dist

RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/api/v1/utils/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: in-flight requests finish, background parts stop, then the process exits.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/cli/run.js", "start"]
