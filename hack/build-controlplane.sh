#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, helm 3 and helm 4 from Go modules
# (through the configured GOPROXY) into a version-keyed cache outside the repo:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/inferencecache-doctor/bin/<component>-<version>/
# Versions are pinned in hack/versions.env. Idempotent: existing binaries are skipped.
#
# Usage: hack/build-controlplane.sh [component...]
#   components: etcd kube-apiserver kube-controller-manager helm3 helm4 actionlint (default: all)
# Env: INFERENCECACHE_DOCTOR_CACHE_DIR overrides the cache root; GOMODCACHE/GOCACHE are honoured.
# The last line printed is the bin dir (same as hack/bin-dir.sh).
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

export CGO_ENABLED=0
export GOFLAGS=-mod=mod
# Never fetch a Go toolchain: build with the locally installed go.
export GOTOOLCHAIN=local

log() { echo "[build-controlplane] $*" >&2; }

command -v go >/dev/null || { log "go not found on PATH"; exit 1; }

k8s_minor_patch="${KUBERNETES_VERSION#v1.}"       # 36.3
K8S_STAGING_VERSION="v0.${k8s_minor_patch}"        # v0.36.3
K8S_MINOR="${k8s_minor_patch%%.*}"                 # 36

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
  end=$(date +%s)
  log "built ${dir}/${name} in $((end - start))s ($(du -h "${dir}/${name}" | cut -f1))"
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

have() { [[ -x "$1" ]] && { log "$(basename "$(dirname "$1")")/$(basename "$1") already built, skipping"; return 0; }; return 1; }

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
// Command etcd is a thin wrapper around etcdmain, built by hack/build-controlplane.sh.
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

kube_work() {
  local work="${CP_WORK_ROOT}/kubernetes-${KUBERNETES_VERSION}"
  if [[ ! -f "$work/.ready" ]]; then
    rm -rf "$work"
    init_module "$work" inferencecache-doctor.local/kubernetes
    local kdir
    log "preparing wrapper module for k8s.io/kubernetes@${KUBERNETES_VERSION} in ${work}"
    kdir=$(cd "$work" && go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [[ -f "$kdir/go.mod" ]] || { log "could not download k8s.io/kubernetes@${KUBERNETES_VERSION}"; exit 1; }
    local staging
    staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/.*#\1#p' "$kdir/go.mod" | sort -u)
    [[ -n "$staging" ]] || { log "no staging replaces found in $kdir/go.mod"; exit 1; }
    {
      # same godebug defaults as kubernetes' own go.mod
      grep -E '^godebug ' "$kdir/go.mod" || true
      echo
      echo "replace ("
      local m
      for m in $staging; do echo "	$m => $m ${K8S_STAGING_VERSION}"; done
      echo ")"
    } >> "$work/go.mod"
    quiet "$work" go get "k8s.io/kubernetes@${KUBERNETES_VERSION}"
    touch "$work/.ready"
  fi
  echo "$work"
}

kube_ldflags() {
  local f="" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X ${p}.gitVersion=${KUBERNETES_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${K8S_MINOR} -X ${p}.gitTreeState=clean"
  done
  echo "$f"
}

build_kube() {
  local name="$1" dir="$2"
  have "${dir}/${name}" && return 0
  local work
  work=$(kube_work)
  quiet "$work" go get "k8s.io/kubernetes/cmd/${name}@${KUBERNETES_VERSION}"
  build_bin "$dir" "$name" "$work" "k8s.io/kubernetes/cmd/${name}" "$(kube_ldflags)"
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

build_actionlint() {
  have "${ACTIONLINT_DIR}/actionlint" && return 0
  local work="${CP_WORK_ROOT}/actionlint-${ACTIONLINT_VERSION}"
  init_module "$work" "inferencecache-doctor.local/actionlint"
  quiet "$work" go get "github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}"
  build_bin "$ACTIONLINT_DIR" actionlint "$work" "github.com/rhysd/actionlint/cmd/actionlint" "-X main.version=${ACTIONLINT_VERSION}"
}

link_set() {
  mkdir -p "$CP_SET_DIR"
  local pair
  for pair in "etcd:${ETCD_DIR}/etcd" "kube-apiserver:${KUBE_APISERVER_DIR}/kube-apiserver" \
      "kube-controller-manager:${KUBE_CONTROLLER_MANAGER_DIR}/kube-controller-manager" \
      "helm3:${HELM3_DIR}/helm" "helm4:${HELM4_DIR}/helm"; do
    local link="${CP_SET_DIR}/${pair%%:*}" target="${pair#*:}"
    if [[ -x "$target" ]]; then ln -sfn "$target" "$link"; fi
  done
}

components=("$@")
[[ ${#components[@]} -gt 0 ]] || components=(etcd kube-apiserver kube-controller-manager helm3 helm4 actionlint)
log "versions: etcd ${ETCD_VERSION}, kubernetes ${KUBERNETES_VERSION} (staging ${K8S_STAGING_VERSION}), helm ${HELM3_VERSION} / ${HELM4_VERSION}; go $(go env GOVERSION)"
for c in "${components[@]}"; do
  case "$c" in
    etcd) build_etcd ;;
    kube-apiserver) build_kube kube-apiserver "$KUBE_APISERVER_DIR" ;;
    kube-controller-manager) build_kube kube-controller-manager "$KUBE_CONTROLLER_MANAGER_DIR" ;;
    helm3) build_helm 3 "$HELM3_VERSION" "$HELM3_DIR" ;;
    helm4) build_helm 4 "$HELM4_VERSION" "$HELM4_DIR" ;;
    actionlint) build_actionlint ;;
    *) log "unknown component: $c"; exit 2 ;;
  esac
done
link_set
echo "$CP_SET_DIR"
