#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, helm 3 and 4, actionlint and the real node's
# programs from Go modules
# (through the configured GOPROXY) into a version-keyed cache outside the repo:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/inferencecache-doctor/bin/<component>-<version>/
# Versions are pinned in hack/versions.env. Idempotent: existing binaries are skipped.
#
# Usage: hack/build-tools.sh [component...]
#   components: etcd kube-apiserver kube-apiserver-oldest kube-controller-manager helm3 helm4 actionlint krew node
#               kubernetes = every KUBERNETES_VERSION program, in one go build; kubernetes-oldest = the
#               kube-apiserver at KUBERNETES_OLDEST_VERSION (and the kubelet when it is of that version)
#               (default: all); kube-apiserver-oldest = kube-apiserver at KUBERNETES_OLDEST_VERSION
#               api-protos = the Kubernetes API's .proto files in the Go module cache (for a test)
#               node = kube-scheduler kube-proxy kubectl kubelet coredns kube-router pause (the real node of
#               `npm run cluster:up -- --node`; each can be named alone too)
#               argocd = Argo CD's application-controller and repo-server (`cluster:up -- --node --argocd`)
#               upstream = the product's controller, server, kvevent-subscriber, kvevent-fake-engine and CLI,
#               from ../shared/upstream; cert-manager = its controller, webhook and cainjector, from
#               ../shared/thirdparty (both for `cluster:up -- --node --upstream`)
#               flux = Flux's source-controller (a module) and helm-controller (from ../shared/thirdparty),
#               for `cluster:up -- --node --flux`
# Env: INFERENCECACHE_DOCTOR_CACHE_DIR overrides the cache root; GOMODCACHE/GOCACHE are honoured;
# BUILD_TIMES_FILE, when set, gets a line `<program><TAB><seconds>` for each program built and
# `<program><TAB>cached` for each found built (the phase table of .ci/run, scripts/ci-phases.ts).
# The last line printed is the bin dir (same as hack/bin-dir.sh).
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

export CGO_ENABLED=0
export GOFLAGS=-mod=mod
# Never fetch a Go toolchain: build with the locally installed go.
export GOTOOLCHAIN=local

log() { echo "[build-tools] $*" >&2; }

# record <program> <seconds|cached>: one line of BUILD_TIMES_FILE.
record() { if [[ -n "${BUILD_TIMES_FILE:-}" ]]; then printf '%s\t%s\n' "$1" "$2" >> "$BUILD_TIMES_FILE"; fi; }

command -v go >/dev/null || { log "go not found on PATH"; exit 1; }

# build_bin <component-dir> <binary-name> <workdir> <package> <ldflags>
# Runs in <workdir> (a generated wrapper module). Writes atomically.
build_bin() {
  local dir="$1" name="$2" work="$3" pkg="$4" ldflags="$5"
  mkdir -p "$dir"
  local start end
  start=$(date +%s)
  log "building ${name} (${pkg}) -> ${dir}"
  (cd "$work" && nice -n 10 go build -trimpath -ldflags "-s -w ${ldflags}" -o "${dir}/.${name}.tmp" "$pkg")
  mv -f "${dir}/.${name}.tmp" "${dir}/${name}"
  BUILT_NOW["${dir}/${name}"]=1
  end=$(date +%s)
  log "built ${dir}/${name} in $((end - start))s ($(du -h "${dir}/${name}" | cut -f1))"
  record "$(basename "$dir")/${name}" "$((end - start))"
}

# quiet <workdir> <cmd...>: run in workdir, show output only on failure.
quiet() {
  local work="$1"; shift
  if ! (cd "$work" && "$@") >"$work/.last-cmd.log" 2>&1; then
    cat "$work/.last-cmd.log" >&2
    log "failed: $* (in $work)"
    return 1
  fi
}

# Programs this run built, so a later `have` for one of them does not count it as found cached.
declare -A BUILT_NOW=()
have() {
  [[ -x "$1" ]] || return 1
  [[ -n "${BUILT_NOW[$1]:-}" ]] && return 0
  log "$(basename "$(dirname "$1")")/$(basename "$1") already built, skipping"
  record "$(basename "$(dirname "$1")")/$(basename "$1")" cached
}

# init_module <workdir> <module-path>: fresh go.mod (kept across runs; go.sum too).
init_module() {
  local work="$1" mod="$2"
  mkdir -p "$work"
  if [[ ! -f "$work/go.mod" ]]; then
    (cd "$work" && go mod init "$mod" >/dev/null 2>&1)
  fi
}

build_etcd() {
  local bin="${ETCD_DIR}/etcd"
  have "$bin" && return 0
  local work="${CP_WORK_ROOT}/etcd-${ETCD_VERSION}"
  init_module "$work" inferencecache-doctor.local/etcd
  cat > "$work/main.go" <<'GO'
// Command etcd is a thin wrapper around etcdmain, built by hack/build-tools.sh.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  quiet "$work" go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
  build_bin "$ETCD_DIR" etcd "$work" . ""
}

# kube_work [version]: the wrapper module for k8s.io/kubernetes at that version (default KUBERNETES_VERSION).
kube_work() {
  local version="${1:-$KUBERNETES_VERSION}"
  local staging_version="v0.${version#v1.}"
  local work="${CP_WORK_ROOT}/kubernetes-${version}"
  if [[ ! -f "$work/.ready" ]]; then
    rm -rf "$work"
    init_module "$work" inferencecache-doctor.local/kubernetes
    local kdir
    log "preparing wrapper module for k8s.io/kubernetes@${version} in ${work}"
    kdir=$(cd "$work" && go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [[ -f "$kdir/go.mod" ]] || { log "could not download k8s.io/kubernetes@${version}"; exit 1; }
    local staging
    staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/.*#\1#p' "$kdir/go.mod" | sort -u)
    [[ -n "$staging" ]] || { log "no staging replaces found in $kdir/go.mod"; exit 1; }
    {
      # same godebug defaults as kubernetes' own go.mod
      grep -E '^godebug ' "$kdir/go.mod" || true
      echo
      echo "replace ("
      local m
      for m in $staging; do echo "	$m => $m ${staging_version}"; done
      echo ")"
    } >> "$work/go.mod"
    quiet "$work" go get "k8s.io/kubernetes@${version}"
    touch "$work/.ready"
  fi
  echo "$work"
}

# kube_ldflags [version]
kube_ldflags() {
  local version="${1:-$KUBERNETES_VERSION}" f="" p
  local minor="${version#v1.}"; minor="${minor%%.*}"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X ${p}.gitVersion=${version} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${minor} -X ${p}.gitTreeState=clean"
  done
  echo "$f"
}

# build_kube_set <version> <name>:<dir>...: the Kubernetes programs of one version that are not built
# yet, in one `go build`: the packages they share compile once, and each program links while the
# compiler works on the next (links are single-threaded; built one by one, a core idled through each).
build_kube_set() {
  local version="$1"; shift
  local pair name dir missing=() pkgs=()
  for pair in "$@"; do
    name="${pair%%:*}"; dir="${pair#*:}"
    have "${dir}/${name}" && continue
    missing+=("$pair"); pkgs+=("k8s.io/kubernetes/cmd/${name}")
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  local work start end out
  work=$(kube_work "$version")
  quiet "$work" go get "${pkgs[@]/%/@${version}}"
  out="${work}/out"
  rm -rf "$out"; mkdir -p "$out"
  start=$(date +%s)
  log "building ${missing[*]%%:*} (k8s.io/kubernetes ${version}) in one go build"
  (cd "$work" && nice -n 10 go build -trimpath -ldflags "-s -w $(kube_ldflags "$version")" -o "${out}/" "${pkgs[@]}")
  end=$(date +%s)
  for pair in "${missing[@]}"; do
    name="${pair%%:*}"; dir="${pair#*:}"
    mkdir -p "$dir"
    mv -f "${out}/${name}" "${dir}/${name}"
    BUILT_NOW["${dir}/${name}"]=1
    log "built ${dir}/${name} ($(du -h "${dir}/${name}" | cut -f1))"
  done
  # One figure for the set: its programs were built together.
  record "kubernetes-${version} (${missing[*]%%:*})" "$((end - start))"
  rm -rf "$out"
}

# build_kube <cmd> <dir> [version]: one Kubernetes program.
build_kube() { build_kube_set "${3:-$KUBERNETES_VERSION}" "$1:$2"; }

# CoreDNS with only the plugins a test cluster's DNS needs (kubernetes, no forward: nothing leaves
# the machine), in plugin.cfg's order, as CoreDNS documents for custom builds.
build_coredns() {
  have "${COREDNS_DIR}/coredns" && return 0
  local work="${CP_WORK_ROOT}/coredns-${COREDNS_VERSION}"
  init_module "$work" inferencecache-doctor.local/coredns
  cat > "$work/main.go" <<'GO'
// Command coredns is CoreDNS with the plugins the test cluster uses, built by hack/build-tools.sh.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
GO
  quiet "$work" go get "github.com/coredns/coredns@${COREDNS_VERSION}"
  build_bin "$COREDNS_DIR" coredns "$work" . "-X github.com/coredns/coredns/coremain.GitCommit=${COREDNS_VERSION}"
}

build_kube_router() {
  have "${KUBE_ROUTER_DIR}/kube-router" && return 0
  local work="${CP_WORK_ROOT}/kube-router-${KUBE_ROUTER_VERSION}"
  init_module "$work" inferencecache-doctor.local/kube-router
  quiet "$work" go get "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@${KUBE_ROUTER_VERSION}"
  build_bin "$KUBE_ROUTER_DIR" kube-router "$work" "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router" \
    "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=${KUBE_ROUTER_VERSION}"
}

# The pod sandbox's pause image: a static program that sleeps until SIGTERM or SIGINT. No registry is
# reachable, so the node's images are built here; the engine stand-in pods run it too.
build_pause() {
  have "${PAUSE_DIR}/pause" && return 0
  local work="${CP_WORK_ROOT}/pause-${PAUSE_VERSION}"
  init_module "$work" inferencecache-doctor.local/pause
  cat > "$work/main.go" <<'GO'
// Command pause holds a pod sandbox's namespaces until it is told to stop.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
GO
  build_bin "$PAUSE_DIR" pause "$work" . ""
}

build_helm() {
  local major="$1" version="$2" dir="$3"
  have "${dir}/helm" && return 0
  local work="${CP_WORK_ROOT}/helm-${version}"
  init_module "$work" "inferencecache-doctor.local/helm${major}"
  quiet "$work" go get "helm.sh/helm/v${major}/cmd/helm@${version}"
  local ldflags="-X helm.sh/helm/v${major}/internal/version.version=${version} -X helm.sh/helm/v${major}/internal/version.gitTreeState=clean"
  if [[ "$major" == 3 ]]; then
    # helm 3's Makefile derives the default "kube version" from its client-go (v0.N -> 1.N)
    local cg maj min
    cg=$(cd "$work" && go list -m -f '{{.Version}}' k8s.io/client-go)
    cg="${cg#v}"; maj=$(( ${cg%%.*} + 1 )); min="${cg#*.}"; min="${min%%.*}"
    local p
    for p in pkg/lint/rules pkg/chartutil; do
      ldflags+=" -X helm.sh/helm/v3/${p}.k8sVersionMajor=${maj} -X helm.sh/helm/v3/${p}.k8sVersionMinor=${min}"
    done
  fi
  build_bin "$dir" helm "$work" "helm.sh/helm/v${major}/cmd/helm" "$ldflags"
}

# prepare_nested <work> <what> <module@version> <nested-module@version> <subdir>: once (`.ready`), copies
# the module to <work>/src, writable, with the nested module (a module of its own, which the module zip
# leaves out) put at <subdir>, where the module's go.mod replace points. Runs with the caller's GOTOOLCHAIN.
prepare_nested() {
  local work="$1" what="$2" module="$3" nested="$4" subdir="$5"
  [[ -f "$work/.ready" ]] && return 0
  rm -rf "$work"
  mkdir -p "$work/download"
  log "preparing the source of ${what} in ${work}"
  local dirs main inner
  dirs=$(cd "$work/download" && GOFLAGS= go mod download -json "$module" "$nested" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  main=$(sed -n 1p <<<"$dirs")
  inner=$(sed -n 2p <<<"$dirs")
  [[ -f "$main/go.mod" && -f "$inner/go.mod" ]] || { log "could not download ${module} and ${nested}"; exit 1; }
  cp -r "$main" "$work/src"
  chmod -R u+w "$work/src"
  rm -rf "${work:?}/src/${subdir}"
  cp -r "$inner" "$work/src/${subdir}"
  chmod -R u+w "$work/src/${subdir}"
  rm -rf "$work/download"
  touch "$work/.ready"
}

# Argo CD's application-controller and repo-server, the two components the tests run. Its go.mod
# replaces gitops-engine with ./gitops-engine and k8s.io staging modules, so `go install` cannot build
# it: built from a prepared copy (prepare_nested) with the toolchain its go.mod asks for. Argo CD's
# own main links every component (its API server, CLI, Dex, notifications, ApplicationSet's SCM
# providers); ours links those two, which more than halves what is compiled. Like Argo CD's, it picks
# the component by the name it is run as (or ARGOCD_BINARY_NAME).
build_argocd() {
  have "${ARGOCD_DIR}/argocd" && return 0
  local work="${CP_WORK_ROOT}/argocd-${ARGOCD_VERSION}"
  GOTOOLCHAIN="$ARGOCD_GO_TOOLCHAIN" prepare_nested "$work" "Argo CD ${ARGOCD_VERSION}" \
    "github.com/argoproj/argo-cd/v3@${ARGOCD_VERSION}" "github.com/argoproj/argo-cd/gitops-engine/v3@${ARGOCD_VERSION}" gitops-engine
  mkdir -p "$work/src/cmd/icd-argocd"
  cat > "$work/src/cmd/icd-argocd/main.go" <<'GO'
// Command icd-argocd runs Argo CD's application-controller or repo-server, chosen by the name it is run
// as; built by inferencecache-doctor's hack/build-tools.sh with only what those two need.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func init() {
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
}

// Argo CD's own main switches gRPC's DNS SRV lookups off, which the grpclb balancer its other
// components link switches on; this build does not link grpclb, so they are off already (and Argo
// CD's switch, which insists on finding them on, would panic).
func main() {
	name := filepath.Base(os.Args[0])
	if v := os.Getenv("ARGOCD_BINARY_NAME"); v != "" {
		name = v
	}
	var command *cobra.Command
	switch name {
	case common.CommandApplicationController:
		command = appcontroller.NewCommand()
	case common.CommandRepoServer:
		command = reposerver.NewCommand()
	default:
		fmt.Fprintf(os.Stderr, "%s: this build runs only %s and %s\n", name, common.CommandApplicationController, common.CommandRepoServer)
		os.Exit(2)
	}
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
GO
  GOTOOLCHAIN="$ARGOCD_GO_TOOLCHAIN" build_bin "$ARGOCD_DIR" argocd "$work/src" ./cmd/icd-argocd \
    "-X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v} -X github.com/argoproj/argo-cd/v3/common.gitTreeState=clean"
}

# krew as kubectl finds it (kubectl-krew) and the validator of plugin manifests krew's index runs.
build_krew() {
  have "${KREW_DIR}/kubectl-krew" && have "${KREW_DIR}/validate-krew-manifest" && return 0
  local work="${CP_WORK_ROOT}/krew-${KREW_VERSION}"
  init_module "$work" "inferencecache-doctor.local/krew"
  quiet "$work" go get "sigs.k8s.io/krew@${KREW_VERSION}"
  build_bin "$KREW_DIR" kubectl-krew "$work" "sigs.k8s.io/krew/cmd/krew" "-X sigs.k8s.io/krew/internal/version.gitTag=${KREW_VERSION}"
  build_bin "$KREW_DIR" validate-krew-manifest "$work" "sigs.k8s.io/krew/cmd/validate-krew-manifest" ""
}

# oras, which pushes artifacthub-repo.yml to the chart's OCI repository (docs/image.md).
build_oras() {
  have "${ORAS_DIR}/oras" && return 0
  local work="${CP_WORK_ROOT}/oras-${ORAS_VERSION}"
  init_module "$work" "inferencecache-doctor.local/oras"
  quiet "$work" go get "oras.land/oras@${ORAS_VERSION}"
  build_bin "$ORAS_DIR" oras "$work" "oras.land/oras/cmd/oras" "-X oras.land/oras/internal/version.GitTreeState=clean"
}

build_actionlint() {
  have "${ACTIONLINT_DIR}/actionlint" && return 0
  local work="${CP_WORK_ROOT}/actionlint-${ACTIONLINT_VERSION}"
  init_module "$work" "inferencecache-doctor.local/actionlint"
  quiet "$work" go get "github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}"
  build_bin "$ACTIONLINT_DIR" actionlint "$work" "github.com/rhysd/actionlint/cmd/actionlint" "-X main.version=${ACTIONLINT_VERSION}"
}

build_registry() {
  have "${REGISTRY_DIR}/registry" && return 0
  local work="${CP_WORK_ROOT}/registry-${REGISTRY_VERSION}"
  init_module "$work" "inferencecache-doctor.local/registry"
  quiet "$work" go get "github.com/distribution/distribution/v3/cmd/registry@${REGISTRY_VERSION}"
  build_bin "$REGISTRY_DIR" registry "$work" "github.com/distribution/distribution/v3/cmd/registry" \
    "-X github.com/distribution/distribution/v3/version.version=${REGISTRY_VERSION}"
}

build_cosign() {
  have "${COSIGN_DIR}/cosign" && return 0
  local work="${CP_WORK_ROOT}/cosign-${COSIGN_VERSION}"
  init_module "$work" "inferencecache-doctor.local/cosign"
  quiet "$work" go get "github.com/sigstore/cosign/v2/cmd/cosign@${COSIGN_VERSION}"
  build_bin "$COSIGN_DIR" cosign "$work" "github.com/sigstore/cosign/v2/cmd/cosign" \
    "-X sigs.k8s.io/release-utils/version.gitVersion=${COSIGN_VERSION}"
}

# Flux's source-controller from its module, prepared with its api module at ./api (prepare_nested).
# The proxy refuses pkg/artifact at the version it asks for: the nearest served release stands in.
build_flux_source_controller() {
  have "${FLUX_SOURCE_CONTROLLER_DIR}/source-controller" && return 0
  local work="${CP_WORK_ROOT}/flux-source-controller-${FLUX_SOURCE_CONTROLLER_VERSION}"
  prepare_nested "$work" "Flux source-controller ${FLUX_SOURCE_CONTROLLER_VERSION}" \
    "github.com/fluxcd/source-controller@${FLUX_SOURCE_CONTROLLER_VERSION}" "github.com/fluxcd/source-controller/api@${FLUX_SOURCE_CONTROLLER_VERSION}" api
  quiet "$work/src" go mod edit "-replace=github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@${FLUX_ARTIFACT_VERSION}"
  build_bin "$FLUX_SOURCE_CONTROLLER_DIR" source-controller "$work/src" . ""
}

# Flux's helm-controller from its release tree (THIRDPARTY_SRC_DIR), in a writable copy whose replace of
# Helm by Flux's fork is swapped for upstream Helm at FLUX_HELM_VERSION (docs/real-node.md, "Flux").
build_flux_helm_controller() {
  have "${FLUX_HELM_CONTROLLER_DIR}/helm-controller" && return 0
  local src="${THIRDPARTY_SRC_DIR}/flux-helm-controller-${FLUX_HELM_CONTROLLER_VERSION}"
  [[ -f "${src}/go.mod" ]] || { log "Flux helm-controller's source is not at ${src}"; exit 1; }
  local work="${CP_WORK_ROOT}/flux-helm-controller-${FLUX_HELM_CONTROLLER_VERSION}"
  rm -rf "$work"
  mkdir -p "$work"
  (cd "$src" && tar --exclude=./docs --exclude=./tests -cf - .) | (cd "$work" && tar -xf -)
  chmod -R u+w "$work"
  quiet "$work" go mod edit -dropreplace=helm.sh/helm/v4 "-require=helm.sh/helm/v4@${FLUX_HELM_VERSION}"
  build_bin "$FLUX_HELM_CONTROLLER_DIR" helm-controller "$work" . ""
  rm -rf "$work"
}


# The real product from its source tree (UPSTREAM_SRC_DIR, read-only): the controller, the server, the
# KV-event subscriber and fake engine, and the upstream CLI (whose `doctor` the parity tests run), static,
# with the flags of the product's own Dockerfile, all in one `go build` so they share its work. The
# tree is not a git checkout: the folder is keyed by UPSTREAM_COMMIT and holds a digest of the Go
# sources it was built from (`.source-digest`), so an edited tree is rebuilt. The sources are copied to a
# writable folder first (go build may touch go.sum).
upstream_digest() {
  [[ -f "${UPSTREAM_SRC_DIR}/go.mod" ]] || { log "the product's source tree is not at ${UPSTREAM_SRC_DIR}"; exit 1; }
  (cd "$UPSTREAM_SRC_DIR" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}

UPSTREAM_PROGRAMS=(controller server kvevent-subscriber kvevent-fake-engine inferencecache)

build_upstream() {
  local digest dir="$UPSTREAM_DIR"
  digest=$(upstream_digest)
  if [[ "$(cat "${dir}/.source-digest" 2>/dev/null)" != "$digest" ]]; then rm -rf "$dir"; fi
  local p missing=()
  for p in "${UPSTREAM_PROGRAMS[@]}"; do [[ -x "${dir}/${p}" ]] || missing+=("$p"); done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "upstream-${UPSTREAM_COMMIT}: ${UPSTREAM_PROGRAMS[*]} already built, skipping"
    record "upstream-${UPSTREAM_COMMIT} (${UPSTREAM_PROGRAMS[*]})" cached
    return 0
  fi
  local work="${CP_WORK_ROOT}/upstream-${UPSTREAM_COMMIT}"
  rm -rf "$work"
  mkdir -p "$work" "$dir"
  (cd "$UPSTREAM_SRC_DIR" && tar --exclude=./site --exclude=./rust --exclude=./docs -cf - .) | (cd "$work" && tar -xf -)
  chmod -R u+w "$work"
  local start end pkgs=()
  for p in "${missing[@]}"; do pkgs+=("./cmd/${p}"); done
  start=$(date +%s)
  log "building the product (${missing[*]}) from ${UPSTREAM_SRC_DIR} -> ${dir}"
  (cd "$work" && nice -n 10 go build -trimpath \
    -ldflags "-s -w -X github.com/cachebox-project/inference-cache/internal/version.GitCommit=${UPSTREAM_COMMIT}" \
    -o "${work}/out/" "${pkgs[@]}")
  for p in "${missing[@]}"; do mv -f "${work}/out/${p}" "${dir}/${p}"; done
  echo "$digest" > "${dir}/.source-digest"
  rm -rf "$work"
  end=$(date +%s)
  log "built the product in $((end - start))s ($(du -ch "${dir}"/* | tail -1 | cut -f1))"
  record "upstream-${UPSTREAM_COMMIT} (${missing[*]})" "$((end - start))"
}

# cert-manager's three components from their cmd/* modules (THIRDPARTY_SRC_DIR), each in a writable copy
# whose replace of the main module by `../../` is swapped for the module proxy's release of it.
build_cert_manager_one() {
  local name="$1"
  have "${CERT_MANAGER_DIR}/${name}" && return 0
  local src="${THIRDPARTY_SRC_DIR}/cert-manager-${CERT_MANAGER_VERSION}/cmd/${name}"
  [[ -f "${src}/go.mod" ]] || { log "cert-manager's cmd/${name} is not at ${src}"; exit 1; }
  local work="${CP_WORK_ROOT}/cert-manager-${CERT_MANAGER_VERSION}-${name}"
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "${src}/." "$work/"
  chmod -R u+w "$work"
  quiet "$work" go mod edit -dropreplace=github.com/cert-manager/cert-manager \
    "-require=github.com/cert-manager/cert-manager@${CERT_MANAGER_VERSION}"
  if [[ "$name" == controller ]]; then
    quiet "$work" go mod edit "-replace=github.com/Venafi/vcert/v5=github.com/Venafi/vcert/v5@${CERT_MANAGER_VCERT_VERSION}"
  fi
  build_bin "$CERT_MANAGER_DIR" "$name" "$work" . \
    "-X github.com/cert-manager/cert-manager/pkg/util.AppVersion=${CERT_MANAGER_VERSION} -X github.com/cert-manager/cert-manager/pkg/util.AppGitCommit=${CERT_MANAGER_VERSION}"
  rm -rf "$work"
}

build_cert_manager() {
  build_cert_manager_one webhook
  build_cert_manager_one cainjector
  build_cert_manager_one controller
}

link_set() {
  mkdir -p "$CP_SET_DIR"
  local pair
  for pair in "etcd:${ETCD_DIR}/etcd" "kube-apiserver:${KUBE_APISERVER_DIR}/kube-apiserver" \
      "kube-apiserver-oldest:${KUBE_APISERVER_OLDEST_DIR}/kube-apiserver" \
      "kube-controller-manager:${KUBE_CONTROLLER_MANAGER_DIR}/kube-controller-manager" \
      "helm3:${HELM3_DIR}/helm" "helm4:${HELM4_DIR}/helm" \
      "kube-scheduler:${KUBE_SCHEDULER_DIR}/kube-scheduler" "kube-proxy:${KUBE_PROXY_DIR}/kube-proxy" \
      "kubectl:${KUBECTL_DIR}/kubectl" "kubectl-krew:${KREW_DIR}/kubectl-krew" \
      "validate-krew-manifest:${KREW_DIR}/validate-krew-manifest" \
      "kubelet:${KUBELET_DIR}/kubelet" "coredns:${COREDNS_DIR}/coredns" \
      "kube-router:${KUBE_ROUTER_DIR}/kube-router" "pause:${PAUSE_DIR}/pause" "argocd:${ARGOCD_DIR}/argocd" \
      "registry:${REGISTRY_DIR}/registry" "cosign:${COSIGN_DIR}/cosign" "oras:${ORAS_DIR}/oras" \
      "cert-manager-controller:${CERT_MANAGER_DIR}/controller" "cert-manager-webhook:${CERT_MANAGER_DIR}/webhook" \
      "cert-manager-cainjector:${CERT_MANAGER_DIR}/cainjector" "upstream-controller:${UPSTREAM_DIR}/controller" \
      "upstream-server:${UPSTREAM_DIR}/server" "upstream-kvevent-subscriber:${UPSTREAM_DIR}/kvevent-subscriber" \
      "upstream-kvevent-fake-engine:${UPSTREAM_DIR}/kvevent-fake-engine" "upstream-inferencecache:${UPSTREAM_DIR}/inferencecache" \
      "flux-source-controller:${FLUX_SOURCE_CONTROLLER_DIR}/source-controller" "flux-helm-controller:${FLUX_HELM_CONTROLLER_DIR}/helm-controller"; do
    local link="${CP_SET_DIR}/${pair%%:*}" target="${pair#*:}"
    if [[ -x "$target" ]]; then ln -sfn "$target" "$link"; fi
  done
}

# api-protos: the protobuf definitions of the Kubernetes API the doctor's protobuf declarations are held
# against (test/unit/cluster/protobuf-schema.test.ts): k8s.io/api and k8s.io/apimachinery at the staging
# version of KUBERNETES_VERSION, in the Go module cache. Building Kubernetes fetches them too; this makes
# sure of them when the binaries came from a cache and the module cache did not.
ensure_api_protos() {
  local staging_version="v0.${KUBERNETES_VERSION#v1.}"
  local work="${CP_WORK_ROOT}/api-protos-${staging_version}"
  init_module "$work" inferencecache-doctor.local/api-protos
  quiet "$work" go mod download "k8s.io/api@${staging_version}" "k8s.io/apimachinery@${staging_version}"
  log "k8s.io/api and k8s.io/apimachinery ${staging_version} are in the module cache ($(go env GOMODCACHE))"
}

components=("$@")
# By default everything, the Kubernetes programs of each version in one go build (kubernetes,
# kubernetes-oldest, which takes the kubelet too when it is of that version).
[[ ${#components[@]} -gt 0 ]] || components=(etcd kubernetes kubernetes-oldest helm3 helm4 actionlint krew node argocd registry cosign oras api-protos upstream cert-manager flux)
log "versions: etcd ${ETCD_VERSION}, kubernetes ${KUBERNETES_VERSION} (kubelet ${KUBELET_VERSION}), helm ${HELM3_VERSION} / ${HELM4_VERSION}; go $(go env GOVERSION)"
for c in "${components[@]}"; do
  case "$c" in
    etcd) build_etcd ;;
    kube-apiserver) build_kube kube-apiserver "$KUBE_APISERVER_DIR" ;;
    kube-apiserver-oldest) build_kube kube-apiserver "$KUBE_APISERVER_OLDEST_DIR" "$KUBERNETES_OLDEST_VERSION" ;;
    kube-controller-manager) build_kube kube-controller-manager "$KUBE_CONTROLLER_MANAGER_DIR" ;;
    helm3) build_helm 3 "$HELM3_VERSION" "$HELM3_DIR" ;;
    helm4) build_helm 4 "$HELM4_VERSION" "$HELM4_DIR" ;;
    actionlint) build_actionlint ;;
    krew) build_krew ;;
    oras) build_oras ;;
    kube-scheduler) build_kube kube-scheduler "$KUBE_SCHEDULER_DIR" ;;
    kube-proxy) build_kube kube-proxy "$KUBE_PROXY_DIR" ;;
    kubectl) build_kube kubectl "$KUBECTL_DIR" ;;
    kubelet) build_kube kubelet "$KUBELET_DIR" "$KUBELET_VERSION" ;;
    coredns) build_coredns ;;
    kube-router) build_kube_router ;;
    pause) build_pause ;;
    argocd) build_argocd ;;
    registry) build_registry ;;
    cosign) build_cosign ;;
    api-protos) ensure_api_protos ;;
    upstream) build_upstream ;;
    cert-manager) build_cert_manager ;;
    flux) build_flux_source_controller; build_flux_helm_controller ;;
    flux-source-controller) build_flux_source_controller ;;
    flux-helm-controller) build_flux_helm_controller ;;
    node) build_kube_set "$KUBERNETES_VERSION" "kube-scheduler:$KUBE_SCHEDULER_DIR" "kube-proxy:$KUBE_PROXY_DIR" "kubectl:$KUBECTL_DIR"
      build_kube kubelet "$KUBELET_DIR" "$KUBELET_VERSION"; build_coredns; build_kube_router; build_pause ;;
    kubernetes) build_kube_set "$KUBERNETES_VERSION" "kube-apiserver:$KUBE_APISERVER_DIR" "kube-controller-manager:$KUBE_CONTROLLER_MANAGER_DIR" \
        "kube-scheduler:$KUBE_SCHEDULER_DIR" "kube-proxy:$KUBE_PROXY_DIR" "kubectl:$KUBECTL_DIR" ;;
    kubernetes-oldest) build_kube_set "$KUBERNETES_OLDEST_VERSION" "kube-apiserver:$KUBE_APISERVER_OLDEST_DIR" \
        $([[ "$KUBELET_VERSION" == "$KUBERNETES_OLDEST_VERSION" ]] && echo "kubelet:$KUBELET_DIR") ;;
    *) log "unknown component: $c"; exit 2 ;;
  esac
done
link_set
echo "$CP_SET_DIR"
