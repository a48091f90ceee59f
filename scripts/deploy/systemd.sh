# systemd: deploy/hermes-bridge@.service under a real systemd (PID 1 of a podman --systemd=always
# container made from the local base image): enable, start, /healthz, its state under StateDirectory=,
# a task done, a stop that drains and keeps the cut run's claim, and a start that continues it. Sourced by
# scripts/test-deploy.sh.
# shellcheck shell=bash

sx() { pm exec hkb-systemd "$@"; }
sd_up() { sx systemctl is-system-running --wait | grep -Eq 'running|degraded'; }
unit_healthz() { sx node -e "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; }
sd_board() { sx su hermes-bridge -s /bin/sh -c "HERMES_HOME=/var/lib/hkb-board node /usr/local/lib/node_modules/hermes-kanban-bridge/dist/emulator/bin.js $*"; }
sd_task() { sd_board kanban --board main create "'$1'" --body "'$2'" --assignee s1 --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))'; }
sd_status_is() { sd_board kanban --board main show "$1" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const d=JSON.parse(s);console.log(d.task.status);process.exit(d.task.status===process.argv[1]?0:1)})' "$2"; }
sd_continue() { sx systemctl start hermes-bridge@s1 && wait_for 120 sd_status_is "$1" done; }
sd_no_open_run() { sd_board kanban --board main show "$1" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).runs;console.log(JSON.stringify(r.map(x=>[x.outcome,x.ended_at])));process.exit(r.length>0&&r.every(x=>x.ended_at!=null)?0:1)})'; }

systemd_stage() {
  local ctx="$HKB_WORK/systemd-image"
  mkdir -p "$ctx"
  cp "$HKB_REPO/scripts/deploy/systemd/"* "$ctx/" && cp "$HKB_REPO/deploy/hermes-bridge@.service" "$ctx/"
  cp "$HKB_WORK/image/"*.tgz "$ctx/" && cp -a "$HKB_WORK/emulator-image/node_modules" "$ctx/"
  check "systemd: the test machine image builds (systemd, the package, the unit as shipped)" dk main build --network host -t hkb-test/systemd "$ctx"
  [ -d "$HKB_WORK/podman/root" ] || podman_setup
  podman_load hkb-test/systemd
  check "systemd: a real systemd boots as PID 1 (podman --systemd=always)" \
    pm run -d --name hkb-systemd --network none --systemd=always hkb-test/systemd
  check "systemd: the system is up" wait_for 60 sd_up
  check "systemd: systemctl enable --now hermes-bridge@s1" sx systemctl enable --now hermes-bridge@s1
  check "systemd: the unit is active and /healthz answers 200" wait_for 60 unit_healthz
  check "systemd: its state is under StateDirectory= (/var/lib/hermes-bridge/s1, 0700, the seat's user), not in a HOME" sx sh -c \
    'test -f /var/lib/hermes-bridge/s1/status.json && test "$(stat -c "%a %U" /var/lib/hermes-bridge/s1)" = "700 hermes-bridge" && test ! -e /home/hermes-bridge/.local/state'
  check "systemd: the CLIs' execute-only images go under CacheDirectory= (/var/cache/hermes-bridge, 0700, the seat's user), not in a HOME" sx sh -c \
    'test "$(stat -c "%a %U" /var/cache/hermes-bridge)" = "700 hermes-bridge" && test ! -e /home/hermes-bridge/.cache/hermes-bridge'
  local t1 t2
  t1=$(sd_task "under systemd" "DEMO:complete")
  check "systemd: the seat completes a task" wait_for 60 sd_status_is "$t1" done
  t2=$(sd_task "a long one" "DEMO:slow")
  wait_for 60 sd_status_is "$t2" running || true
  sleep 2
  check "systemd: systemctl stop drains (the bridge stops claiming, stops its run politely, keeps its claim)" sx systemctl stop hermes-bridge@s1
  sx journalctl -u hermes-bridge@s1 --no-pager >"$HKB_WORK/logs/systemd-journal.log" 2>&1 || true
  check "systemd: the journal says the bridge stopped after its drain" grep -q "hermes-kanban-bridge stopped" "$HKB_WORK/logs/systemd-journal.log"
  # shutdown.inFlight: continue (the default): the cut run stays the seat's, and the next start continues it.
  check "systemd: the cut run's claim is kept for the seat's restart (journal: claim kept)" grep -q '"close":"kept"' "$HKB_WORK/logs/systemd-journal.log"
  check "systemd: nothing of the seat is left running (KillMode=mixed)" fails sx pgrep -u hermes-bridge
  check "systemd: systemctl start again: the seat continues the cut task to done (no human unblock)" sd_continue "$t2"
  check "systemd: the continued task has no open run" sd_no_open_run "$t2"
  sx systemctl stop hermes-bridge@s1 >/dev/null 2>&1 || true
  pm stop -t 10 hkb-systemd >/dev/null 2>&1 || true
}
