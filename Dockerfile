# Pipeline Trigger Service: the API server. See docker-compose.yml for Postgres + the service.

# Build stage: every dependency, then the TypeScript build (dist/).
FROM node:20-slim AS build
WORKDIR /app
# Dependencies first, so source edits reuse the cached install layer. The
# package's own `prepare` (the build) cannot run before the sources are in.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Run stage: production dependencies and the compiled JavaScript, no TypeScript.
FROM node:20-slim
# tini is pid 1: it passes `docker stop`'s SIGTERM on to node and reaps zombies
# (the worker agent's commands, when the image runs the agent).
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (the build) needs the dev dependencies and ran in the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The schema's SQL files, read at start from beside dist/ (src/Db/SqlMigrations.ts).
COPY migrations ./migrations
COPY bin ./bin
COPY web ./web

# Inside a container the service must listen on every interface; the embedded
# database (used only when DATABASE_URL is unset) lives in /data.
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node

EXPOSE 3000
# node itself, not `npm start`: the signal from `docker stop` reaches the
# service's graceful shutdown (readiness 503, drain, runs handed back) with no
# npm or shell in between. The agent from the same image:
#   docker run --rm <image> node bin/pipeline-worker.js --url … --registration-token wrk_…
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
