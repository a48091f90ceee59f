# The image as shipped, its demo, the agents' jail under Docker, and the board host image. Sourced by
# scripts/test-deploy.sh.
# shellcheck shell=bash

BRIDGE_IMAGE=hermes-bridge:0.1.0

image_stage() {
  local ctx="$HKB_WORK/image"
  mkdir -p "$ctx"
  (cd "$HKB_REPO" && npm pack --silent --pack-destination "$ctx" >/dev/null)
  cp "$HKB_REPO/deploy/Dockerfile" "$ctx/"
  # As the Dockerfile's header says; the build's RUN steps use the host's network (apt, the npm registry).
  check "image: deploy/Dockerfile builds (no compiler, --omit=optional)" dk main build --network host -t "$BRIDGE_IMAGE" -f "$ctx/Dockerfile" "$ctx"
  local want
  want=$(node -p "require('$HKB_REPO/package.json').version")
  check "image: --version prints $want" test "$(dk main run --rm --network none "$BRIDGE_IMAGE" --version)" = "$want"
  check "image: runs as a non-root user" test "$(dk main run --rm --network none --entrypoint id "$BRIDGE_IMAGE" -u)" != 0
  # (the one native module is @napi-rs/xattr's prebuilt binary — the give-back's ACLs, issue 50 —, installed, never built)
  check "image: no compiler and no native module built in it" dk main run --rm --network none --entrypoint sh "$BRIDGE_IMAGE" -c \
    '! command -v cc && ! command -v g++ && ! command -v make && [ -z "$(find /usr/local/lib/node_modules/hermes-kanban-bridge -name "*.node" -not -path "*/node_modules/@napi-rs/xattr*")" ]'
  dk main run --rm --network none "$BRIDGE_IMAGE" demo >"$HKB_WORK/logs/image-demo-without-driver.log" 2>&1 || true
  check "image: without the emulator's driver the demo says what to install" grep -q "needs better-sqlite3, an optional dependency" \
    "$HKB_WORK/logs/image-demo-without-driver.log"
  # The emulator image: the shipped one plus the driver `npm ci` built here (same Node, same glibc).
  local ectx="$HKB_WORK/emulator-image" m
  mkdir -p "$ectx/node_modules"
  for m in better-sqlite3 bindings file-uri-to-path; do cp -a "$HKB_REPO/node_modules/$m" "$ectx/node_modules/"; done
  rm -rf "$ectx/node_modules/better-sqlite3/deps" "$ectx/node_modules/better-sqlite3/src" "$ectx/node_modules/better-sqlite3/build/Release/obj"*
  cp "$HKB_REPO/scripts/deploy/emulator.Dockerfile" "$ectx/Dockerfile"
  check "image: the emulator variant builds" dk main build -t hkb-test/emulator "$ectx"
  dk main run --rm --network none hkb-test/emulator demo >"$HKB_WORK/logs/image-demo.log" 2>&1 || true
  check "image: the demo runs in a container (four tasks: complete, block, lease lost and retried, crash)" sh -c \
    "grep -q 'Demo board' '$HKB_WORK/logs/image-demo.log' && grep -Eq 'done +2' '$HKB_WORK/logs/image-demo.log' && grep -q 'blocked' '$HKB_WORK/logs/image-demo.log'"
}

# bubblewrap in a container: which docker run options let the jail build (the probe the bridge runs,
# then a real seat with agent.isolation bwrap completing a task in its jail).
SECCOMP_BWRAP="$HKB_REPO/deploy/docker/seccomp-bwrap.json"
# The bridge's probe (src/jail/policy.ts) as it runs it: the jail's own system-call filter, written by the
# installed package (src/jail/seccomp.ts), loaded inside with --seccomp on fd 3; the jail's own network
# namespace and read-only root and /dev as every jail has (src/jail/bwrap.ts).
BRIDGE_DIST=/usr/local/lib/node_modules/hermes-kanban-bridge/dist
JAIL_FILTER="node -e 'import(\"$BRIDGE_DIST/jail/seccomp.js\").then((m) => m.writeSeccomp(\"/tmp/jail\"))'"
JAIL_BWRAP='bwrap --ro-bind / / --proc /proc --ro-bind /proc/sys /proc/sys --dev /dev --size 1048576 --tmpfs /dev/shm --remount-ro /dev --tmpfs /tmp --unshare-pid --unshare-ipc --unshare-uts --unshare-net --unshare-cgroup-try --new-session --die-with-parent --cap-drop ALL --seccomp 3 --remount-ro /'
JAIL_PROBE="set -e; $JAIL_FILTER; $JAIL_BWRAP true 3</tmp/jail/seccomp.bpf"
# …and the filter is in force inside: ptrace(PTRACE_TRACEME) is refused (EPERM), which the container allows.
PTRACE_ME='import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); r=l.syscall(101,0,0,0,0); sys.exit(0 if r==-1 and ctypes.get_errno()==1 else 1)'
JAIL_FILTERED="set -e; $JAIL_FILTER; python3 -c '${PTRACE_ME/sys.exit(0 if r==-1 and ctypes.get_errno()==1 else 1)/sys.exit(0 if r==0 else 1)}'; $JAIL_BWRAP python3 -c '$PTRACE_ME' 3</tmp/jail/seccomp.bpf"

jail_run() { dk main run --rm --network none --entrypoint sh "$@"; }

# A seat on an emulator board inside the same container, one task, agent jailed: the jail for real.
JAIL_SEAT='set -e; export HERMES_HOME=/tmp/board; E="node /usr/local/lib/node_modules/hermes-kanban-bridge/dist/emulator/bin.js"
$E kanban boards create main >/dev/null
$E kanban --board main create jailed --body DEMO:complete --assignee s >/dev/null
printf "boards: [main]\nassignee: s\nagent: {kind: command, command: [node, %s], isolation: {mode: %s}}\nhermes: {command: [node, /usr/local/lib/node_modules/hermes-kanban-bridge/dist/emulator/bin.js], home: /tmp/board}\nstateDir: /tmp/state\ndiscovery: {watch: false}\n" "$DEMO_AGENT" "${MODE:-bwrap}" > /tmp/seat.yaml
hermes-bridge run --config /tmp/seat.yaml --once --log-format json > /tmp/run.log 2>&1 || { cat /tmp/run.log; exit 1; }
grep -o "\"isolation\":{[^}]*}" /tmp/run.log | head -n 1 || true
$E kanban --board main list --json | grep -q "\"status\": \"done\""
if grep -q "without a system-call filter" /tmp/run.log; then echo "the jail ran without its system-call filter"; exit 1; fi'

jail_stage() {
  check "jail: Docker's defaults refuse bubblewrap (no user namespace under the default seccomp profile)" \
    fails jail_run "$BRIDGE_IMAGE" -c "$JAIL_PROBE"
  jail_run --security-opt seccomp=unconfined --security-opt apparmor=unconfined "$BRIDGE_IMAGE" -c "$JAIL_PROBE" \
    >"$HKB_WORK/logs/jail-unconfined.log" 2>&1 || true
  check "jail: seccomp=unconfined is not enough (Docker's masked /proc paths: Can't mount proc)" \
    grep -q "Can't mount proc on /newroot/proc" "$HKB_WORK/logs/jail-unconfined.log"
  check "jail: the seccomp profile alone is not enough either" \
    fails jail_run --security-opt "seccomp=$SECCOMP_BWRAP" "$BRIDGE_IMAGE" -c "$JAIL_PROBE"
  # The recipe docs/deploy.md, the probe's hint and doctor give (apparmor=unconfined: a no-op on a kernel without AppArmor).
  local narrow=(--security-opt "seccomp=$SECCOMP_BWRAP" --security-opt systempaths=unconfined --security-opt apparmor=unconfined --security-opt no-new-privileges)
  check "jail: docker run with deploy/docker/seccomp-bwrap.json + systempaths, apparmor unconfined + no-new-privileges builds the jail" \
    jail_run "${narrow[@]}" "$BRIDGE_IMAGE" -c "$JAIL_PROBE"
  check "jail: the jail's own system-call filter loads under the profile and is in force inside (ptrace refused)" \
    jail_run "${narrow[@]}" "$BRIDGE_IMAGE" -c "$JAIL_FILTERED"
  check "jail: seccomp=unconfined in place of the profile builds it too" jail_run --security-opt seccomp=unconfined \
    --security-opt systempaths=unconfined --security-opt apparmor=unconfined --security-opt no-new-privileges "$BRIDGE_IMAGE" -c "$JAIL_PROBE"
  check "jail: a seat with isolation bwrap completes a task in its jail under those options" \
    jail_run "${narrow[@]}" -e DEMO_AGENT="$DEMO_AGENT" hkb-test/emulator -c "$JAIL_SEAT"
  check "jail: the seccomp profile still refuses what Docker's default refuses (keyctl)" jail_run "${narrow[@]}" "$BRIDGE_IMAGE" -c \
    'python3 -c "import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(0 if l.syscall(250,0,0,0,0)==-1 and ctypes.get_errno()==1 else 1)"'
  check "jail: compose's privileged + no-new-privileges builds it too (what deploy/compose.yaml uses)" \
    jail_run --privileged --security-opt no-new-privileges "$BRIDGE_IMAGE" -c "$JAIL_PROBE"
}

# The board host: sshd and the real Hermes CLI (HKB_HERMES_SRC) or the bundled emulator.
board_stage() {
  local ctx="$HKB_WORK/board-image"
  mkdir -p "$ctx/hermes" "$ctx/ssh" "$HKB_WORK/ssh"
  cp "$HKB_REPO/scripts/deploy/board/"* "$ctx/"
  ssh-keygen -q -t ed25519 -N '' -C hkb-seat -f "$HKB_WORK/ssh/id_ed25519"
  ssh-keygen -q -t ed25519 -N '' -C board-host -f "$ctx/ssh/ssh_host_ed25519_key"
  cp "$HKB_WORK/ssh/id_ed25519.pub" "$ctx/ssh/authorized_keys"
  echo "board-host $(cut -d' ' -f1,2 "$ctx/ssh/ssh_host_ed25519_key.pub")" >"$HKB_WORK/ssh/known_hosts"
  HKB_BOARD_FLAVOUR=emulator
  if [ -n "${HKB_HERMES_SRC:-}" ]; then
    # The real CLI's source as scripts/setup-real-hermes.sh unpacks it.
    git --git-dir="$HKB_HERMES_SRC" archive HEAD | tar -x -C "$ctx/hermes" \
      --exclude=apps --exclude=website --exclude=tests --exclude=web --exclude=ui-tui --exclude=assets
    HKB_BOARD_FLAVOUR=real
  else
    log "board: HKB_HERMES_SRC is not set (no copy of the Hermes source here, as in CI): the board host runs the bundled emulator"
    echo "no Hermes source: the emulator board" >"$ctx/hermes/README"
  fi
  check "board: the board host image builds (sshd, $HKB_BOARD_FLAVOUR Hermes)" \
    dk main build --network host --build-arg HERMES="$HKB_BOARD_FLAVOUR" -t hkb-test/board "$ctx"
}
