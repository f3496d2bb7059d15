# shellcheck shell=bash
# Shared helpers for hack/*.sh. Source it; defines cache/bin paths for the pinned versions.
HACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=hack/versions.env
source "${HACK_DIR}/versions.env"

CP_CACHE_DIR="${INFERENCECACHE_DOCTOR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/inferencecache-doctor}"
CP_BIN_ROOT="${CP_CACHE_DIR}/bin"
CP_WORK_ROOT="${CP_CACHE_DIR}/work"

# component dir: <root>/bin/<component>-<version>
cp_component_dir() { echo "${CP_BIN_ROOT}/$1-$2"; }

ETCD_DIR="$(cp_component_dir etcd "${ETCD_VERSION}")"
KUBE_APISERVER_DIR="$(cp_component_dir kube-apiserver "${KUBERNETES_VERSION}")"
KUBE_CONTROLLER_MANAGER_DIR="$(cp_component_dir kube-controller-manager "${KUBERNETES_VERSION}")"
KUBE_APISERVER_OLDEST_DIR="$(cp_component_dir kube-apiserver "${KUBERNETES_OLDEST_VERSION}")"
HELM3_DIR="$(cp_component_dir helm "${HELM3_VERSION}")"
HELM4_DIR="$(cp_component_dir helm "${HELM4_VERSION}")"
ACTIONLINT_DIR="$(cp_component_dir actionlint "${ACTIONLINT_VERSION}")"
KREW_DIR="$(cp_component_dir krew "${KREW_VERSION}")"

# One directory with symlinks to everything for this exact version set (put it on PATH / hand it to tests).
CP_SET_DIR="${CP_BIN_ROOT}/set-k8s-${KUBERNETES_VERSION}_etcd-${ETCD_VERSION}_helm-${HELM3_VERSION}_${HELM4_VERSION}"
KUBE_SCHEDULER_DIR="$(cp_component_dir kube-scheduler "${KUBERNETES_VERSION}")"
KUBE_PROXY_DIR="$(cp_component_dir kube-proxy "${KUBERNETES_VERSION}")"
KUBELET_DIR="$(cp_component_dir kubelet "${KUBELET_VERSION}")"
COREDNS_DIR="$(cp_component_dir coredns "${COREDNS_VERSION}")"
KUBE_ROUTER_DIR="$(cp_component_dir kube-router "${KUBE_ROUTER_VERSION}")"
PAUSE_DIR="$(cp_component_dir pause "${PAUSE_VERSION}")"
KUBECTL_DIR="$(cp_component_dir kubectl "${KUBERNETES_VERSION}")"
ARGOCD_DIR="$(cp_component_dir argocd "${ARGOCD_VERSION}")"
REGISTRY_DIR="$(cp_component_dir registry "${REGISTRY_VERSION}")"
COSIGN_DIR="$(cp_component_dir cosign "${COSIGN_VERSION}")"
ORAS_DIR="$(cp_component_dir oras "${ORAS_VERSION}")"

# The product's source tree and the third-party sources beside the project (reference data, read-only).
UPSTREAM_SRC_DIR="${INFERENCECACHE_DOCTOR_UPSTREAM_DIR:-${HACK_DIR}/../../shared/upstream}"
THIRDPARTY_SRC_DIR="${INFERENCECACHE_DOCTOR_THIRDPARTY_DIR:-${HACK_DIR}/../../shared/thirdparty}"
CERT_MANAGER_DIR="$(cp_component_dir cert-manager "${CERT_MANAGER_VERSION}")"
UPSTREAM_DIR="$(cp_component_dir upstream "${UPSTREAM_COMMIT}")"
FLUX_SOURCE_CONTROLLER_DIR="$(cp_component_dir flux-source-controller "${FLUX_SOURCE_CONTROLLER_VERSION}")"
# keyed by the Helm it is built against too
FLUX_HELM_CONTROLLER_DIR="$(cp_component_dir flux-helm-controller "${FLUX_HELM_CONTROLLER_VERSION}-helm-${FLUX_HELM_VERSION}")"
