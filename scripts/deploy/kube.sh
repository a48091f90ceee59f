# Kubernetes, as far as this machine allows (no kube-apiserver or kubelet here): the seat pool's
# kustomize overlays rendered and every object validated against the Kubernetes schemas
# (scripts/deploy/kube-render.mjs), then the ordinal-0 seat pod smoke-run with `podman kube play`,
# /healthz asserted from inside the pod. Sourced by scripts/test-deploy.sh.
# shellcheck shell=bash

# podman with all its state under the lane's work dir, no network of its own, and no registry: short
# names resolve locally or not at all, and its HTTP(S) proxy is a closed loopback port.
pm() {
  HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= CONTAINERS_REGISTRIES_CONF="$HKB_WORK/podman/registries.conf" \
    podman --root "$HKB_WORK/podman/root" --runroot "$HKB_WORK/podman/run" --tmpdir "$HKB_WORK/podman/tmp" \
    --cgroup-manager cgroupfs --events-backend file "$@"
}

podman_setup() {
  mkdir -p "$HKB_WORK/podman/root" "$HKB_WORK/podman/run" "$HKB_WORK/podman/tmp"
  printf 'unqualified-search-registries = []\nshort-name-mode = "permissive"\n' >"$HKB_WORK/podman/registries.conf"
  on_exit "podman_teardown"
}

podman_teardown() {
  pm pod rm -af -t 5 >/dev/null 2>&1 || true
  pm rm -af -t 5 >/dev/null 2>&1 || true
  pm volume rm -af >/dev/null 2>&1 || true
  umount_under "$HKB_WORK/podman"
}

# podman_load <image…>: images from the lane's dockerd (docker save | podman load).
podman_load() { dk main save "$@" | pm load -q >/dev/null; }

pod_healthz() { pm exec hermes-bridge-seat-0-bridge node -e "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; }

kube_stage() {
  local k="$HKB_WORK/kube"
  cp -a "$HKB_REPO/deploy/kubernetes" "$k"
  check "kube: overlays/example (the pool and its Secrets) renders, every object valid against the Kubernetes schemas" \
    node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/example"
  check "kube: overlays/restricted (no jail settings, isolation auto) renders and validates" \
    node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/restricted"
  # The smoke run: real secrets, the demo agent (no model credentials here), the board as a sidecar.
  cp "$HKB_WORK/ssh/id_ed25519" "$k/overlays/example/board-ssh/id_ed25519"
  cp "$HKB_WORK/ssh/known_hosts" "$k/overlays/example/board-ssh/known_hosts"
  sed -i "s#token=change-me-to-a-long-random-token#token=$HKB_TOKEN#" "$k/overlays/example/kustomization.yaml"
  sed -i "s#^agent: .*#agent: { kind: command, command: [node, $DEMO_AGENT], isolation: bwrap }#" "$k/base/seat.yaml"
  node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/example" --smoke "$k/smoke.yaml" >/dev/null
  mkdir -p "$k/seccomp/hermes-bridge"
  cp "$HKB_REPO/deploy/docker/seccomp-bwrap.json" "$k/seccomp/hermes-bridge/"
  podman_setup
  podman_load "$BRIDGE_IMAGE" hkb-test/board
  check "kube: podman kube play runs the seat pod (StatefulSet ordinal 0, its claim, its Secrets, the jail's securityContext)" \
    pm kube play --network none --seccomp-profile-root "$k/seccomp" "$k/smoke.yaml"
  check "kube: the seat pod answers /healthz 200" wait_for 90 pod_healthz
  pm exec hermes-bridge-seat-0-bridge node -e \
    "fetch('http://127.0.0.1:9464/status',{headers:{authorization:'Bearer '+process.env.HKB_HTTP_TOKEN}}).then(r=>r.text()).then(t=>process.stdout.write(t))" \
    >"$HKB_WORK/logs/kube-status.json" 2>&1 || true
  check "kube: the pod's seat is named by its ordinal (hermes-bridge-seat-0)" json_is "$HKB_WORK/logs/kube-status.json" seat.name hermes-bridge-seat-0/hermes-bridge
  check "kube: the pod's agents are jailed (status: isolation bwrap)" json_is "$HKB_WORK/logs/kube-status.json" seat.isolation.mode bwrap
  pm logs hermes-bridge-seat-0-bridge >"$HKB_WORK/logs/kube-seat.log" 2>&1 || true
  pm kube down "$k/smoke.yaml" >/dev/null 2>&1 || true
}
