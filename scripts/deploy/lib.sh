# The deploy lane's helpers (sourced by scripts/test-deploy.sh): logging, checks that count, timed
# steps, and one cleanup stack that runs on every exit — a pass, a failure or a signal.
# shellcheck shell=bash

HKB_PASSED=0
HKB_FAILED=0
HKB_SKIPPED=0
HKB_FAILURES=()
HKB_CLEANUP=()
HKB_TIMINGS=()
HKB_T0=$(date +%s)
# Where a failing case's whole log is kept: outside the lane's work dir, which its cleanup removes.
HKB_KEPT=${HKB_KEPT:-/var/tmp/hkb-deploy-logs-$(date +%Y%m%d-%H%M%S)}

log() { printf '[deploy %4ss] %s\n' "$(($(date +%s) - HKB_T0))" "$*"; }
die() { log "FATAL: $*"; exit 1; }

# check <name> <command…>: one test case. Its output goes to the case's log; a failure keeps that log
# whole in $HKB_KEPT (the lane's cleanup does not touch it), says where, and prints its tail.
check() {
  local name=$1
  shift
  local file
  file="$(tr -c 'A-Za-z0-9._-' '_' <<<"$name" | head -c 80).log"
  local out="$HKB_WORK/logs/$file"
  if "$@" >"$out" 2>&1; then
    HKB_PASSED=$((HKB_PASSED + 1))
    log "ok   - $name"
  else
    HKB_FAILED=$((HKB_FAILED + 1))
    HKB_FAILURES+=("$name (log: $HKB_KEPT/$file)")
    mkdir -p "$HKB_KEPT" && cp "$out" "$HKB_KEPT/$file"
    log "FAIL - $name"
    log "       its whole log: $HKB_KEPT/$file"
    tail -n 25 "$out" | sed 's/^/    | /'
  fi
}

# keep_logs: every log of the lane (cases, cleanup, containers, engines) copied to $HKB_KEPT — after the cleanup,
# which writes the containers' logs, and before the work dir goes.
keep_logs() {
  mkdir -p "$HKB_KEPT"
  cp -a "$HKB_WORK/logs/." "$HKB_KEPT/" 2>/dev/null || true
  local e
  for e in "$HKB_WORK"/engines/*/dockerd.log; do
    [ -f "$e" ] && cp "$e" "$HKB_KEPT/dockerd-$(basename "$(dirname "$e")").log"
  done
  log "the lane's logs are kept in $HKB_KEPT"
}

skip() {
  HKB_SKIPPED=$((HKB_SKIPPED + 1))
  log "skip - $1: $2"
}

# step <name> <function…>: a timed part of the lane (the report's timings).
step() {
  local name=$1 t
  shift
  t=$(date +%s)
  log "== $name"
  "$@"
  HKB_TIMINGS+=("$name $(($(date +%s) - t))s")
}

# on_exit <command…>: run at exit, last registered first. Each is run once, its failure noted.
on_exit() { HKB_CLEANUP+=("$*"); }

run_cleanup() {
  local i
  for ((i = ${#HKB_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${HKB_CLEANUP[$i]}" >>"$HKB_WORK/logs/cleanup.log" 2>&1 || log "cleanup step failed: ${HKB_CLEANUP[$i]}"
  done
  HKB_CLEANUP=()
}

# fails <command…>: a case that passes when the command fails (what must be refused).
fails() { ! "$@"; }

# page_block <name>: a shell block of docs/deploy.md as the page has it (scripts/deploy/page-block.mjs).
page_block() { node "$HKB_REPO/scripts/deploy/page-block.mjs" "$1" "$HKB_REPO/docs/deploy.md"; }

# free_port: a TCP port nothing listens on at 127.0.0.1 now (the kernel's pick).
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# wait_for <seconds> <command…>: poll until the command succeeds (a deploy test waits on real engines).
wait_for() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 1
  done
}

# kill_pid <pidfile or pid> [seconds]: SIGTERM, wait, SIGKILL — by pid only.
kill_pid() {
  local pid=$1 grace=${2:-20} i
  [ -f "$pid" ] && pid=$(cat "$pid")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Unmount whatever is still mounted under a dir, deepest first (after the daemons are gone).
umount_under() {
  local dir=$1
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" || true
  done
}

# json_is <file> <dotted.path> <value>: a JSON file's field equals a value (printed either way).
json_is() {
  node -e 'const [f, p, want] = process.argv.slice(1); let v = JSON.parse(require("fs").readFileSync(f, "utf8"));
    for (const k of p.split(".")) v = v?.[k]; console.log(`${p} = ${JSON.stringify(v)}`); process.exit(String(v) === want ? 0 : 1);' "$@"
}
