# evsync as an image: the package `npm pack` makes, installed globally, as a user installs it
# (README, "Installing"). docker-compose.yml builds it for its sandbox, workers, scheduler and
# dashboard.
#   docker build -t evsync .
#   docker run --rm --env-file .env -v "$PWD:/work" evsync run jobs/nightly.yaml

# The build: dev dependencies (TypeScript) only here; `npm pack` compiles and pins the
# dependencies with npm-shrinkwrap.json (`prepack`: scripts/build-if-stale.ts, pack-manifest.ts).
FROM node:20.20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json README.md ./
COPY scripts ./scripts
COPY src ./src
COPY docs ./docs
COPY mappings ./mappings
COPY jobs ./jobs
RUN npm pack --pack-destination /pkg && mv /pkg/evsync-*.tgz /pkg/evsync.tgz

# The runtime: no compiler, no source, no dev dependencies; runs as the image's `node` user.
FROM node:20.20-bookworm-slim
ENV NODE_ENV=production \
    EVSYNC_DATA_DIR=/data \
    EVSYNC_HEALTH_PORT=9464
COPY --from=build /pkg/evsync.tgz /tmp/evsync.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/evsync.tgz \
    && rm /tmp/evsync.tgz \
    && npm cache clean --force \
    && mkdir -p /data /work \
    && chown node:node /data /work
USER node
WORKDIR /work
# Job files and their data are the user's: mount them at /work (compose mounts ./jobs).
VOLUME ["/data"]
# `evsync worker --metrics-port 9464` and `evsync dashboard --port N` serve /readyz; set
# EVSYNC_HEALTH_PORT to the port the container's command serves it on. One-shot commands
# (run, schedule) end before the first check.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.EVSYNC_HEALTH_PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["evsync"]
CMD ["--help"]
