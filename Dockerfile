FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# postinstall applies patches/ (postgres.js: a lost connection must not crash the process).
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY drizzle ./drizzle
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
EXPOSE 4000
# tsx runs the TypeScript sources; SIGTERM from `docker stop` shuts down gracefully.
CMD ["node", "--import", "tsx", "src/main.ts"]
