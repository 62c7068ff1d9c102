#!/bin/sh
# Copies the shipped policies and evidence toolsets into the kustomize base, whose
# configMapGenerator can only read files below deploy/kubernetes/base/.
# Usage: deploy/kubernetes/sync-config.sh   (from anywhere in the repository)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
config="$root/deploy/kubernetes/base/config"
for f in policies/default.yaml tools/dcgm.yaml tools/tpu.yaml; do
  if [ -f "$root/$f" ]; then
    cp "$root/$f" "$config/$f"
    echo "copied $f"
  else
    echo "missing $root/$f: kept the placeholder" >&2
  fi
done
