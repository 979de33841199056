# syntax=docker/dockerfile:1
# Tollgate's container image: `docker build -t tollgate .` from the repository root.
# Two stages: the build stage has the compilers better-sqlite3 needs and the devDependencies
# (esbuild builds the widget's script and the console); the runtime stage gets only what
# `tollgate serve` runs.
# Checked by packages/server/test/container-files.test.ts (docs/production.md, "Run it in containers").

FROM node:20.20.2-bookworm AS build
WORKDIR /app
# node:20-bookworm already carries python3, make and g++, which better-sqlite3's node-gyp build
# uses when no prebuilt binary matches.
COPY package.json package-lock.json ./
COPY packages/pricing/package.json packages/pricing/
COPY packages/server/package.json packages/server/
COPY packages/widget/package.json packages/widget/
COPY packages/console/package.json packages/console/
COPY packages/sdk/package.json packages/sdk/
COPY packages/forwarder/package.json packages/forwarder/
# npm ci runs the root's `prepare` (the server's build), which finds no sources yet and skips.
COPY packages/server/scripts packages/server/scripts
RUN npm ci --no-audit --no-fund
COPY packages/pricing packages/pricing
COPY packages/server packages/server
COPY packages/widget packages/widget
COPY packages/console packages/console
COPY packages/sdk packages/sdk
# The server runs compiled (packages/server/dist, with source maps; pricing and the SDK are
# bundled in). The widget's script and the console are served from dist/; without them the server
# would build them with esbuild, a devDependency that the runtime stage does not have (their routes
# would answer 503).
RUN npm run build \
    && npm run build -w @tollgate/widget \
    && npm run build -w @tollgate/console \
    && npm prune --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/@tollgate/forwarder

FROM node:20.20.2-bookworm-slim AS runtime
# tini is PID 1: it forwards SIGTERM to node (main.ts closes the server, the jobs and the
# database pool, then exits 0) and reaps any zombie.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini=0.19.* \
    && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    TOLLGATE_PROFILE=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/tollgate
WORKDIR /app
# Code and dependencies stay owned by root (read-only for the service); only the data directory is
# the node user's.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages/pricing/package.json packages/pricing/package.json
COPY --from=build /app/packages/widget/package.json packages/widget/package.json
COPY --from=build /app/packages/widget/dist packages/widget/dist
COPY --from=build /app/packages/console/package.json packages/console/package.json
COPY --from=build /app/packages/console/dist packages/console/dist
COPY --from=build /app/packages/sdk/package.json packages/sdk/package.json
# The compiled server (the CLI's API commands use the SDK bundled into it); bin/tollgate.js runs
# dist/ and, finding no sources beside it, never rebuilds (scripts/build.mjs).
COPY --from=build /app/packages/server/package.json packages/server/package.json
COPY --from=build /app/packages/server/bin packages/server/bin
COPY --from=build /app/packages/server/scripts packages/server/scripts
COPY --from=build /app/packages/server/dist packages/server/dist
RUN mkdir -p /var/lib/tollgate && chown node:node /var/lib/tollgate
# The embedded SQLite database (when DATABASE_URL is unset) and the development key file live here.
VOLUME ["/var/lib/tollgate"]
USER node
EXPOSE 8080
# Liveness only (GET /health touches nothing else); slim has no curl, so node's own fetch asks.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "packages/server/bin/tollgate.js"]
CMD ["serve"]
