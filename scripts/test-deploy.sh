#!/usr/bin/env bash
# npm run test:deploy — the deploy files run for real (issue 39; docs/deploy.md). As root with apt-get it
# installs docker.io, docker-compose, debootstrap and podman from Debian, starts its OWN dockerd (private
# socket, data root, exec root, pidfile; no iptables, no ip_forward), makes the base image locally
# (debootstrap + this machine's Node 20 and npm, imported as node:20-bookworm-slim: no image registry is
# ever contacted), builds deploy/Dockerfile and runs: the image (--version, no native module, the demo),
# the agents' jail under Docker, compose with three seats on one board over ssh (a seat killed and
# restarted mid-run), a Docker Swarm pool across two nodes in network namespaces with no default route
# (scaled, a node drained), the Kubernetes StatefulSet rendered, validated and smoke-run with podman, and
# the systemd unit under a real systemd. Everything it made is removed on every exit and checked gone.
#
# Skips (exit 0, saying why) where it cannot run — not root, no apt-get, no Docker engine startable —
# unless HKB_REQUIRE_DEPLOY=1 (CI), which makes a skip a failure. The board is real Hermes when
# HKB_HERMES_SRC names a git dir of its source (JetBrains/hermes-agent), else the bundled emulator in the
# same board container (CI has no copy of the Hermes source; the lane says which it ran).
# HKB_DEPLOY_CACHE=<dir> keeps the debootstrap tarball between runs (off by default: CI starts from nothing).
set -euo pipefail
HKB_REPO=${HKB_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
export HKB_REPO
D="$(cd "$(dirname "$0")" && pwd)/deploy"
# shellcheck source=deploy/lib.sh
. "$D/lib.sh"
. "$D/engine.sh"
. "$D/image.sh"
. "$D/compose.sh"
. "$D/swarm.sh"
. "$D/kube.sh"
. "$D/systemd.sh"

skip_lane() {
  echo "deploy lane skipped: $1"
  if [ "${HKB_REQUIRE_DEPLOY:-}" = 1 ]; then
    echo "HKB_REQUIRE_DEPLOY=1: the deploy lane is required here"
    exit 1
  fi
  exit 0
}

[ "$(id -u)" = 0 ] || skip_lane "not root (it starts its own dockerd, network namespaces and veth pairs)"
command -v apt-get >/dev/null || skip_lane "no apt-get (it installs Debian's docker.io, docker-compose, debootstrap, podman)"
need=()
for c in dockerd:docker.io docker-compose:docker-compose debootstrap:debootstrap podman:podman nsenter:util-linux ip:iproute2 curl:curl ssh-keygen:openssh-client catatonit:catatonit; do
  command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} (apt)"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -q && apt-get install -y -q --no-install-recommends "${need[@]}"; } >/tmp/hkb-deploy-apt.log 2>&1 ||
    { tail -n 20 /tmp/hkb-deploy-apt.log; skip_lane "could not install ${need[*]}"; }
fi
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || skip_lane "no overlay filesystem (dockerd's overlay2)"

HKB_WORK=$(mktemp -d /var/tmp/hkb-deploy-XXXXXX)
export HKB_WORK
mkdir -p "$HKB_WORK/logs"
HKB_TOKEN=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
BASE_IMAGE=node:20-bookworm-slim
DEMO_AGENT=/usr/local/lib/node_modules/hermes-kanban-bridge/examples/demo-agent.mjs
HKB_LINKS_BEFORE=$(ip -o link show | awk -F': ' '{print $2}' | sort)
HKB_FORWARD_BEFORE=$(cat /proc/sys/net/ipv4/ip_forward)
# Firewall rules (nft and legacy iptables; the engines run with --iptables=false and make none): compared after.
fw_rules() { { iptables-save 2>/dev/null; iptables-legacy-save 2>/dev/null; nft list ruleset 2>/dev/null; } | grep -Ev '^(#|\*|:|COMMIT)' | sort || true; }
HKB_FW_BEFORE=$(fw_rules)

# After the cleanup stack: nothing of the lane may be left — processes, namespaces, links, mounts.
verify_clean() {
  local left=""
  local procs
  procs=$(pgrep -f -a -- "$HKB_WORK" || true)
  [ -z "$procs" ] || left+=$'\nprocesses:\n'"$procs"
  local ns
  ns=$(ip netns list 2>/dev/null | grep -o '^hkb-[a-z0-9-]*' || true)
  [ -z "$ns" ] || left+=$'\nnetwork namespaces: '"$ns"
  local links
  links=$(comm -13 <(echo "$HKB_LINKS_BEFORE") <(ip -o link show | awk -F': ' '{print $2}' | sort) || true)
  [ -z "$links" ] || left+=$'\nlinks: '"$links"
  local mounts
  mounts=$(grep -F "$HKB_WORK" /proc/mounts || true)
  [ -z "$mounts" ] || left+=$'\nmounts:\n'"$mounts"
  [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$HKB_FORWARD_BEFORE" ] || left+=$'\nip_forward changed'
  local fw
  fw=$(comm -13 <(echo "$HKB_FW_BEFORE") <(fw_rules) || true)
  [ -z "$fw" ] || left+=$'\nfirewall rules:\n'"$fw"
  if [ -z "$left" ]; then
    HKB_PASSED=$((HKB_PASSED + 1))
    log "ok   - cleanup: no process, namespace, link, mount or firewall rule of the lane is left; ip_forward as it was"
  else
    HKB_FAILED=$((HKB_FAILED + 1))
    HKB_FAILURES+=("cleanup")
    log "FAIL - cleanup: left behind:$left"
  fi
}

finish() {
  local rc=$?
  trap - EXIT INT TERM
  log "cleaning up"
  run_cleanup
  verify_clean
  # A failure (or HKB_KEEP_LOGS=1) keeps every log, the cleanup's and the containers' included.
  if [ "$HKB_FAILED" -gt 0 ] || [ "$rc" -ne 0 ] || [ "${HKB_KEEP_LOGS:-}" = 1 ]; then keep_logs; fi
  rm -rf "$HKB_WORK"
  log "timings: ${HKB_TIMINGS[*]}"
  [ ${#HKB_FAILURES[@]} -eq 0 ] || printf '  failed: %s\n' "${HKB_FAILURES[@]}"
  log "the deploy lane took $(($(date +%s) - HKB_T0)) s"
  echo "deploy: $HKB_PASSED passed, $HKB_FAILED failed, $HKB_SKIPPED skipped"
  [ "$rc" -eq 0 ] && [ "$HKB_FAILED" -eq 0 ] && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

only=" ${HKB_DEPLOY_ONLY:-base engine image jail board compose swarm kube systemd} "
want() { [[ "$only" == *" $1 "* ]]; }

step base make_base
step engine start_dockerd main
step engine-import import_base main
step image image_stage
want jail && step jail jail_stage
want board && step board board_stage
want compose && step compose compose_stage
want swarm && step swarm swarm_stage
want kube && step kube kube_stage
want systemd && step systemd systemd_stage
true
