# syntax=docker/dockerfile:1
# --- build stage: full toolchain (better-sqlite3 compiles here) ---
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
# The developer console (Vite + React) is built into dist/console by `npm run build`.
COPY console ./console
COPY clients ./clients
COPY scripts/console-size.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

# --- runtime stage: production dependencies only, non-root ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# node itself, not npm, receives SIGTERM (docker stop) and drains before exiting (docs/operations.md#shutdown);
# NODE_OPTIONS tunes it (a larger young generation: docs/operations.md#node-process).
CMD ["node", "dist/src/main.js"]
