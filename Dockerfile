# syntax=docker/dockerfile:1
# The API and the projector share this image: `node --max-semi-space-size=8 dist/src/main.js` (default, as `npm start`) or `node dist/src/projectorMain.js`.
FROM node:20-bookworm-slim AS base
WORKDIR /app

# better-sqlite3 is a native addon: npm ci builds it from source when no prebuilt binary fits.
FROM base AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./

FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY projections projections
COPY scripts scripts
RUN npm run build

# Production dependencies only, built with the toolchain; the final image gets node_modules, not the compilers.
FROM toolchain AS deps
RUN npm ci --omit=dev --no-audit --no-fund

FROM base
ENV NODE_ENV=production
COPY package.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
# DATA_DIR: mounted as a volume in compose; created here so the volume is writable by `node`.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
CMD ["node", "--max-semi-space-size=8", "dist/src/main.js"]
