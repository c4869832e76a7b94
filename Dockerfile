# Pipeline Trigger Service: the API server. See docker-compose.yml for Postgres + the service.
FROM node:20-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so source edits reuse the cached install layer.
# tsx (the runner behind `npm start`) is a production dependency.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src
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
CMD ["npm", "start"]
