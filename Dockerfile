# syntax=docker/dockerfile:1
#
# The in-cluster doctor image: the esbuild bundle (an entry and its chunks) on a distroless Node 24
# runtime, nothing else.
# The chart (chart/) runs it as a Helm test hook and passes `doctor -o json ...` as args.

# The two bases, pinned by digest so that a rebuild cannot silently change them; override them with
# --build-arg (`npm run image` does, with stand-ins, on a machine that cannot pull). To move to newer
# bases, resolve the multi-arch index digest of each tag and replace it below, e.g. with
#   crane digest gcr.io/distroless/nodejs24-debian13:nonroot
#   docker buildx imagetools inspect node:24-trixie-slim --format '{{.Manifest.Digest}}'
# then rebuild and run the chart's test against a cluster before publishing.
# Set by BuildKit for every build; buildah 1.28 sets only TARGETPLATFORM, so a cross build there passes
# --build-arg BUILDPLATFORM=linux/amd64 (README, "Publishing"). Empty, each FROM takes the default.
ARG BUILDPLATFORM
ARG TARGETPLATFORM
ARG BUILD_IMAGE=node:24-trixie-slim@sha256:8ec5d7557396cfe32d21c3f9c13072355ceab22b584578ca4bb28af31120cffe
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian13:nonroot@sha256:9eeb7f5887d0e239e78264b06f7f11d2e14be534050481803a9e4728fcdd278e

# Build stage: the same Node major as the runtime, so the bundle targets what will run it. It runs on
# the builder's own platform whatever the target (the bundle is JavaScript), so a multi-platform build
# executes nothing under emulation: the runtime stage only copies.
FROM --platform=$BUILDPLATFORM ${BUILD_IMAGE} AS build
WORKDIR /build
# Dependencies first, so a source change does not reinstall them. No install scripts: the `node`
# devDependency (which pins Node 24 for a workstation's `npm run`) would otherwise fetch a second Node;
# this stage has its own, and esbuild finds its platform binary without its script.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/build.mjs
COPY dev/package.ts dev/paths.ts dev/
COPY schema/ schema/
COPY src/ src/
# The build context has no .git: pass the commit for `inferencecache --version`, e.g.
#   docker build --build-arg COMMIT="$(git rev-parse --short=12 HEAD)" .
ARG COMMIT=unknown
RUN INFERENCECACHE_COMMIT="${COMMIT}" npm run build
# The runtime's top layer, laid out here: the bundle's folder (dist/) as /app, every file 0444 and
# every folder 0555. The modes are set here and the COPY below keeps them; `COPY --chmod` cannot set
# both, as BuildKit gives its mode to the folders it copies (and, depending on its version, to those
# it creates), and a folder without x cannot be entered. Copying /layer's contents into / copies /app
# itself, with its mode, rather than creating it with the builder's default.
RUN mkdir /layer && cp -R dist /layer/app && chmod -R a=rX /layer

# Runtime stage: distroless Node 24 (Debian 13), user 65532, no shell, no package manager. Its platform
# is the target's, named explicitly: buildah would otherwise keep the build stage's.
FROM --platform=$TARGETPLATFORM ${RUNTIME_IMAGE}
ARG COMMIT=unknown
ARG VERSION=dev
LABEL org.opencontainers.image.title="inferencecache-doctor" \
      org.opencontainers.image.description="Diagnoses an inference-cache installation on Kubernetes; runs as the chart's Helm test" \
      org.opencontainers.image.source="https://github.com/inference-cache/inferencecache-doctor" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Root-owned and read-only: the process (65532) can run the bundle but never change it.
COPY --from=build --chown=0:0 /layer/ /
USER 65532:65532
WORKDIR /
# One malloc arena: less memory outside the JavaScript heap (why: scripts/bundle/node-flags.ts).
ENV MALLOC_ARENA_MAX=1
# Exec form: node is PID 1 and gets SIGTERM directly; the bundle's entry is the `inferencecache`
# command. The Node flags are scripts/bundle/node-flags.ts's (why: there).
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=4", "--no-warnings", "/app/inferencecache.mjs"]
CMD ["--help"]
