#!/usr/bin/env bash
# Prints the directory holding the binaries for the pinned versions
# (symlinks: etcd, kube-apiserver, kube-controller-manager, helm3, helm4, and the node's programs and kubectl).
#   hack/bin-dir.sh            -> set dir
#   hack/bin-dir.sh --env      -> shell-evaluable variables with each binary's path
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"
if [[ "${1:-}" == "--env" ]]; then
  printf 'CONTROLPLANE_BIN_DIR=%q\n' "${CP_SET_DIR}"
  printf 'ETCD_BIN=%q\n' "${ETCD_DIR}/etcd"
  printf 'KUBE_APISERVER_BIN=%q\n' "${KUBE_APISERVER_DIR}/kube-apiserver"
  printf 'KUBE_CONTROLLER_MANAGER_BIN=%q\n' "${KUBE_CONTROLLER_MANAGER_DIR}/kube-controller-manager"
  printf 'HELM3_BIN=%q\n' "${HELM3_DIR}/helm"
  printf 'HELM4_BIN=%q\n' "${HELM4_DIR}/helm"
else
  echo "${CP_SET_DIR}"
fi
