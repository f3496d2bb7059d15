# syntax=docker/dockerfile:1
#
# The in-cluster doctor image: one esbuild bundle on a distroless Node 24 runtime, nothing else.
# The chart (chart/) runs it as a Helm test hook and passes `doctor -o json ...` as args.

# Build stage: the same Node major as the runtime, so the bundle targets what will run it.
FROM node:24-trixie-slim AS build
WORKDIR /build
# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/build.mjs
COPY scripts/bundle/ scripts/bundle/
COPY src/ src/
# The build context has no .git: pass the commit for `inferencecache --version`, e.g.
#   docker build --build-arg COMMIT="$(git rev-parse --short=12 HEAD)" .
ARG COMMIT=unknown
RUN INFERENCECACHE_COMMIT="${COMMIT}" npm run build

# Runtime stage: distroless Node 24 (Debian 13), user 65532, no shell, no package manager.
# Pinned by digest so a rebuild cannot silently change the runtime. To move to a newer base, resolve the
# multi-arch index digest of the tag and replace the one below, e.g. with
#   crane digest gcr.io/distroless/nodejs24-debian13:nonroot
#   docker buildx imagetools inspect gcr.io/distroless/nodejs24-debian13:nonroot --format '{{.Manifest.Digest}}'
# then rebuild and run the chart's test against a cluster before publishing.
FROM gcr.io/distroless/nodejs24-debian13:nonroot@sha256:9eeb7f5887d0e239e78264b06f7f11d2e14be534050481803a9e4728fcdd278e
# Root-owned and read-only: the process (65532) can run the bundle but never change it.
COPY --from=build --chown=0:0 --chmod=0444 /build/dist/inferencecache.mjs /inferencecache.mjs
USER 65532:65532
WORKDIR /
# Exec form: node is PID 1 and gets SIGTERM directly; the bundle is the `inferencecache` command. The
# Node flags are scripts/bundle/node-flags.ts's (why: there).
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=4", "/inferencecache.mjs"]
CMD ["--help"]
