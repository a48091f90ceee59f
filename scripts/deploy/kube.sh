# Kubernetes, as far as this machine allows (no kube-apiserver or kubelet here): the seat pool's
# kustomize overlays rendered and every object validated against the Kubernetes schemas
# (scripts/deploy/kube-render.mjs), then the ordinal-0 seat pod smoke-run with `podman kube play`,
# /healthz asserted from inside the pod. Sourced by scripts/test-deploy.sh.
# shellcheck shell=bash

# podman with all its state under the lane's work dir, no network of its own, and no registry: short
# names resolve locally or not at all, and its HTTP(S) proxy is a closed loopback port.
pm() {
  HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= CONTAINERS_REGISTRIES_CONF="$HKB_WORK/podman/registries.conf" \
    CONTAINERS_CONF="$HKB_WORK/podman/containers.conf" \
    podman --root "$HKB_WORK/podman/root" --runroot "$HKB_WORK/podman/run" --tmpdir "$HKB_WORK/podman/tmp" \
    --cgroup-manager cgroupfs --events-backend file "$@"
}

podman_setup() {
  mkdir -p "$HKB_WORK/podman/root" "$HKB_WORK/podman/run" "$HKB_WORK/podman/tmp"
  printf 'unqualified-search-registries = []\nshort-name-mode = "permissive"\n' >"$HKB_WORK/podman/registries.conf"
  # podman sets a container's open-files and process limits (to a million) where this machine's runc may
  # not: "error setting rlimit type 6: operation not permitted". Limits below this machine's hard ones work.
  printf '[containers]\ndefault_ulimits = ["nofile=8192:8192", "nproc=8192:8192"]\n' >"$HKB_WORK/podman/containers.conf"
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

pod_task_done() {
  pm exec hermes-bridge-seat-0-board-host su hermes -s /bin/sh -c "hermes kanban --board main show $1 --json" | grep -q '"status": "done"'
}
jail_refused() { pm logs hermes-bridge-seat-0-bridge 2>&1 | grep -q "is bwrap, but /usr/bin/bwrap cannot make a sandbox here: bwrap: Can't mount proc"; }

kube_stage() {
  if ! command -v kubectl >/dev/null; then
    # kustomize comes with kubectl (this machine kind ships one); Debian's kubectl 1.20 is too old for it.
    skip "kube" "no kubectl on this machine to render the kustomize overlays"
    return 0
  fi
  local k="$HKB_WORK/kube"
  cp -a "$HKB_REPO/deploy/kubernetes" "$k"
  check "kube: overlays/example (the pool and its Secrets) renders, every object valid against the Kubernetes schemas" \
    node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/example"
  check "kube: overlays/restricted (no jail settings, isolation auto) renders and validates" \
    node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/restricted"
  # The smoke runs: real secrets, the demo agent (no model credentials here), the board as a sidecar.
  cp "$HKB_WORK/ssh/id_ed25519" "$k/overlays/example/board-ssh/id_ed25519"
  cp "$HKB_WORK/ssh/known_hosts" "$k/overlays/example/board-ssh/known_hosts"
  sed -i "s#token=change-me-to-a-long-random-token#token=$HKB_TOKEN#" "$k/overlays/example/kustomization.yaml"
  sed -i "s#^agent: { kind: claude-code, isolation: \([a-z]*\).*#agent: { kind: command, command: [node, $DEMO_AGENT], isolation: \1 }#" \
    "$k/base/seat.yaml" "$k/overlays/restricted/seat.yaml"
  mkdir -p "$k/seccomp/hermes-bridge"
  cp "$HKB_REPO/deploy/docker/seccomp-bwrap.json" "$k/seccomp/hermes-bridge/"
  podman_setup
  podman_load "$BRIDGE_IMAGE" hkb-test/board
  # The jail's pod: podman 4.3 takes the Localhost seccomp profile but ignores procMount: Unmasked, so
  # bubblewrap cannot mount its /proc there — and a seat with isolation bwrap must refuse to start, saying so.
  node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/example" --smoke "$k/smoke-jail.yaml" >/dev/null
  pm kube play --network none --seccomp-profile-root "$k/seccomp" "$k/smoke-jail.yaml" >"$HKB_WORK/logs/kube-play-jail.log" 2>&1 || true
  check "kube: under podman (no procMount: Unmasked) the jailed seat refuses to start, naming why" wait_for 60 jail_refused
  pm kube down "$k/smoke-jail.yaml" >/dev/null 2>&1 || true
  podman_teardown
  # The restricted pod: the seat runs, healthy, and says it has no jail and why.
  node "$HKB_REPO/scripts/deploy/kube-render.mjs" "$k/overlays/restricted" --smoke "$k/smoke.yaml" >/dev/null
  check "kube: podman kube play runs the seat pod (StatefulSet ordinal 0, its claim, Secrets, security context)" \
    pm kube play --network none "$k/smoke.yaml"
  if [ "${HKB_FAILURES[*]: -1}" = "kube: podman kube play runs the seat pod (StatefulSet ordinal 0, its claim, Secrets, security context)" ]; then
    skip "kube: the seat pod's checks" "the pod did not start"
    return 0
  fi
  check "kube: the seat pod answers /healthz 200" wait_for 90 pod_healthz
  pm exec hermes-bridge-seat-0-bridge node -e \
    "fetch('http://127.0.0.1:9464/status',{headers:{authorization:'Bearer '+process.env.HKB_HTTP_TOKEN}}).then(r=>r.text()).then(t=>process.stdout.write(t))" \
    >"$HKB_WORK/logs/kube-status.json" 2>&1 || true
  check "kube: the pod's seat is named by its ordinal (hermes-bridge-seat-0)" json_is "$HKB_WORK/logs/kube-status.json" seat.name hermes-bridge-seat-0/hermes-bridge
  node -e 'const i=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).seat.isolation; console.log(`kube (restricted) seat isolation: ${i.mode} — ${i.why}`)' \
    "$HKB_WORK/logs/kube-status.json" >"$HKB_WORK/logs/kube-isolation.log" 2>&1 || true
  log "$(cat "$HKB_WORK/logs/kube-isolation.log")"
  check "kube: the restricted seat reports its isolation (auto, not bubblewrap, with why)" fails json_is "$HKB_WORK/logs/kube-status.json" seat.isolation.mode bwrap
  local t
  t=$(pm exec hermes-bridge-seat-0-board-host su hermes -s /bin/sh -c \
    'hermes kanban --board main create "in the pod" --body DEMO:complete --assignee claude --json' |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))') || die "kube: could not create a task"
  check "kube: the seat pod completes a task on its board" wait_for 90 pod_task_done "$t"
  pm logs hermes-bridge-seat-0-bridge >"$HKB_WORK/logs/kube-seat.log" 2>&1 || true
  pm kube down "$k/smoke.yaml" >/dev/null 2>&1 || true
}
