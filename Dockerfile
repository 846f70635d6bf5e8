# syntax=docker/dockerfile:1
# The product in one image: the built web app and the API, served by one Node.js process
# (`node apps/api/dist/main.js`, what `npm start` runs once built). Two stages: `build` installs
# every dependency and builds; `runtime` installs only the API's production dependencies and takes
# the build's output. Not built on the machines this repository is developed on (no container
# registry there): `npm run cluster` is what proves the topology (docs/deployment.md, Docker and
# compose).
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# The manifests alone first: the dependency layer is reused as long as they do not change.
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY packages/contract/package.json packages/contract/
COPY packages/sandbox/package.json packages/sandbox/
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/start.mjs --build-only

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# MALLOC_ARENA_MAX: glibc gives each thread that allocates a malloc arena of its own (up to 8 a
# core) and keeps the pages freed in it while anything above them lives. V8's compiler and
# collector threads allocate as the server starts: idle, it held about 9 MB in four such arenas
# (/proc/<pid>/smaps). Two arenas: the main thread's, and one the other threads share.
# scripts/bench/production-memory.mjs reads this line and the CMD's flags, and runs as the image.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data \
    MALLOC_ARENA_MAX=2
WORKDIR /app
# npm ci checks the lockfile against every workspace's manifest, so all four come along.
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY packages/contract/package.json packages/contract/
COPY packages/sandbox/package.json packages/sandbox/
# The API bundle inlines our own packages (and the few npm ones of apps/api/inlined-packages.mjs)
# and imports only its npm dependencies; the web app is static files. No build tools, test
# runners or browser code in the image.
RUN npm ci --omit=dev --workspace @kegel/api --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /app/data \
    && chown node:node /app/data
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/web/dist apps/web/dist
# The official image's unprivileged user; the files stay root's, read-only to the process.
USER node
EXPOSE 3000
# Ready, not merely alive: the database (and Redis, when configured) must answer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself, not npm, so SIGTERM reaches the server and it closes gracefully. It handles
# SIGTERM and SIGINT itself; run the container with an init (compose's `init: true`, or
# `docker run --init`) so that PID 1 also reaps and forwards the rest.
# No --enable-source-maps: it keeps every loaded file's map for the process's life, about 5 MB
# of an idle server's 80. The bundle is not minified, so a stack trace names its functions, and
# the maps are in the image: `-e NODE_OPTIONS=--enable-source-maps` maps traces to the sources
# while investigating (docs/deployment.md).
CMD ["node", "apps/api/dist/main.js"]
