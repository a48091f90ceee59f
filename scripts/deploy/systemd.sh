# systemd: docs/deploy.md's systemd steps as the page has them, under a real systemd (PID 1 of a podman
# --systemd=always container made from the local base image; bubblewrap allowed there as on a host: the
# seccomp profile of deploy/docker, /proc unmasked). Step 1 (the package, the seats' user, /etc/hermes-bridge,
# the units) is the image's build; steps 2, 3 and 5 run in the booted machine; step 4's login lines are checked
# against what `init` prints. The page's `seat` function makes five seats whose agent is the demo (there are no
# model credentials here) on this machine's board — the bundled emulator, which needs `callServer: on` to be
# shared (their .env files say so: it is no Python launcher). Then: each seat's place, a task per lane, the
# host's hub in the hub service's unit — seats restarted around a running task cut none of its calls — and
# `systemctl stop` mid-run (the claim kept) and `start` (continued to done). Sourced by scripts/test-deploy.sh.
# shellcheck shell=bash

SD_PKG=/usr/local/lib/node_modules/hermes-kanban-bridge
SD_EMU=$SD_PKG/dist/emulator/bin.js
SD_SEATS="s1 s2 s3 s4 s5"

sx() { pm exec hkb-systemd "$@"; }
sd_up() { sx systemctl is-system-running --wait | grep -Eq 'running|degraded'; }
unit_healthz() { sx node -e "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; }
sd_board() { sx runuser -u hermes-bridge -- env HERMES_HOME=/var/lib/hkb-board node "$SD_EMU" "$@"; }
sd_task() { sd_board kanban --board main create "$1" --body "$2" --assignee "$3" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))'; }
sd_status_is() { sd_board kanban --board main show "$1" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const d=JSON.parse(s);console.log(d.task.status);process.exit(d.task.status===process.argv[1]?0:1)})' "$2"; }
sd_continue() { sx systemctl start hermes-bridge@s3 && wait_for 120 sd_status_is "$1" done; }
# board-check.mjs's board: the emulator in the machine, as the seats' user.
sd_check_board() {
  node "$HKB_REPO/scripts/deploy/board-check.mjs" --ids "$1" --wait "$2" -- bash -c \
    '. "$HKB_REPO/scripts/deploy/kube.sh"; pm exec hkb-systemd runuser -u hermes-bridge -- env HERMES_HOME=/var/lib/hkb-board node "$0" "$@"' "$SD_EMU"
}

# The page's block run in the machine as root, after `before` (the lane's values for what the page leaves to
# the operator), then `after` (what the lane does with the page's definitions).
sd_page() { sx bash -euc "${2:-}
$(page_block "$1")
${3:-}"; }

# Step 3: the page's `seat` with this machine's board, the demo agent, and two CLI seats whose printed login
# step 4 is checked against (made, then removed: they have no login here).
SD_SEATS_CALLS='
HERMES="node '$SD_EMU'"
demo="node '$SD_PKG'/examples/demo-agent.mjs"
for s in s1 s2; do seat "$s" pool command --agent-command "$demo" --hermes-home /var/lib/hkb-board; done
for s in s3 s4 s5; do seat "$s" "$s" command --agent-command "$demo" --hermes-home /var/lib/hkb-board; done
seat claude-1 claude claude --hermes-home /var/lib/hkb-board >/root/init-claude-1.out
seat codex-1 codex codex --hermes-home /var/lib/hkb-board >/root/init-codex-1.out
for s in s1 s2 s3 s4 s5; do echo HERMES_BRIDGE_CALL_SERVER=on >>"/etc/hermes-bridge/$s.env"; done
echo HERMES_BRIDGE_HTTP_PORT=9464 >>/etc/hermes-bridge/s3.env
echo "shutdown: { graceSeconds: 10 }" >>/etc/hermes-bridge/s3.yaml
'

# Step 4: every login line of the page is one `init` printed for the claude-1 or codex-1 seat.
sd_login_lines() {
  local l n=0
  while IFS= read -r l; do
    [[ "$l" == runuser* ]] || continue
    n=$((n + 1))
    sx grep -qF -- "$l" /root/init-claude-1.out /root/init-codex-1.out || { echo "init printed no line: $l"; sx cat /root/init-claude-1.out /root/init-codex-1.out; return 1; }
  done < <(page_block systemd-login)
  echo "$n login lines, each as init printed it"
  [ "$n" -ge 2 ]
}

sd_modes() {
  sx sh -c 'stat -c "%n %a %U:%G" /etc/hermes-bridge /etc/hermes-bridge/*.yaml /etc/hermes-bridge/*.env /var/lib/hermes-bridge /var/lib/hermes-bridge/s*' | tee /dev/stderr | awk '
    $1 == "/etc/hermes-bridge" { ok = ok && $2 == "750" && $3 == "root:hermes-bridge"; n++ }
    $1 ~ /^\/etc\/hermes-bridge\/s[0-9]\.(yaml|env)$/ { ok = ok && $2 == "640" && $3 == "root:hermes-bridge"; n++ }
    $1 == "/var/lib/hermes-bridge" { ok = ok && $2 == "755" && $3 ~ /^root:/; n++ }
    $1 ~ /^\/var\/lib\/hermes-bridge\/s[0-9]$/ { ok = ok && $2 == "700" && $3 ~ /^hermes-bridge:/; n++ }
    BEGIN { ok = 1 } END { exit !(ok && n == 17) }'
}

sd_fleet_five() {
  sx hermes-bridge fleet
  # …each one read (a seat whose status.json the fleet cannot read is listed `unreadable`, with why)
  sx hermes-bridge fleet --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const f=JSON.parse(s);const bad=f.seats.filter((x)=>x.state==="unreadable");console.log(f.root, f.seats.length, bad.map((x)=>x.lastError));process.exit(f.root==="/var/lib/hermes-bridge"&&f.seats.length===5&&bad.length===0?0:1)})'
}

sd_all_active() { local s; for s in $SD_SEATS; do sx systemctl is-active --quiet "hermes-bridge@$s" || { echo "hermes-bridge@$s is not active"; return 1; }; done; }

# sd_nothing_left <seat>: no process is in the seat's unit's control group any more (KillMode=mixed).
sd_nothing_left() {
  local left
  left=$(sx sh -c "grep -l 'hermes-bridge@$1.service' /proc/[0-9]*/cgroup 2>/dev/null" || true)
  echo "processes still in hermes-bridge@$1.service: ${left:-none}"
  [ -z "$left" ]
}

# The hub: one for the five seats (the socket every seat's journal names), started by the hub service and in its
# unit's control group. (Step 5's doctor runs in a login shell, not the unit: its environment differs, so the hub
# it asked for is another one — also the service's — which ends when idle; the seats' hub is the one they name.)
sd_seats_socket() {
  sx journalctl -u 'hermes-bridge@*' --no-pager 2>/dev/null | grep -o "the host's hub at [^ ,]*\.sock" | sed 's/.* at //' | sort -u
}
sd_hub_pid() {
  local sock
  sock=$(sd_seats_socket)
  [ -n "$sock" ] && [ "$(wc -w <<<"$sock")" = 1 ] || { echo "the seats name no one hub: ${sock:-none}" >&2; return 1; }
  sx pgrep -u hermes-bridge -f "$SD_PKG/dist/board/hub.mjs .*$(basename "$sock")"
}
sd_hub_in_service() {
  local pids p
  pids=$(sd_hub_pid) || { echo "no hub runs for the seats"; return 1; }
  echo "the seats' hub: $pids"
  [ "$(wc -w <<<"$pids")" = 1 ] && sx grep -q 'hermes-bridge-hubs.service' "/proc/$pids/cgroup" || return 1
  # and every hub of the host is the service's (none in a seat's unit)
  # (a hub that ended since pgrep listed it — step 5's doctor's, ended when idle — is none: its /proc entry is gone)
  local cg
  for p in $(sx pgrep -u hermes-bridge -f "$SD_PKG/dist/board/hub.mjs"); do
    cg=$(sx cat "/proc/$p/cgroup" 2>/dev/null) || continue
    grep -q 'hermes-bridge-hubs.service' <<<"$cg" || { echo "hub $p is not in the hub service's unit"; return 1; }
  done
}

# Seats restarted (and the one stopped) around s4's running task: its calls and its watch go on through the same hub.
sd_restarts_cut_nothing() {
  local hub t ids="$HKB_WORK/systemd-hub-task"
  hub=$(sd_hub_pid)
  t=$(sd_task "s4 works while the others restart" "DEMO:slow" s4)
  echo "$t" >"$ids"
  wait_for 60 sd_status_is "$t" running || { echo "s4 did not start its task"; return 1; }
  sx systemctl restart hermes-bridge@s1 hermes-bridge@s2 hermes-bridge@s5
  sx systemctl stop hermes-bridge@s1
  sx systemctl start hermes-bridge@s1
  sd_check_board "$ids" 120 || return 1
  local now
  now=$(sd_hub_pid)
  echo "hub before: $hub, after: $now"
  [ "$now" = "$hub" ] || return 1
  # s4 saw no hub go away (its log would say the hub closed the connection, or its watch went down)
  sx journalctl -u hermes-bridge@s4 --no-pager >"$HKB_WORK/logs/systemd-s4-journal.log" 2>&1 || true
  ! grep -Ei "hub closed the connection|the host's hub went away|watch (ended|down)" "$HKB_WORK/logs/systemd-s4-journal.log"
}

systemd_stage() {
  local ctx="$HKB_WORK/systemd-image"
  mkdir -p "$ctx"
  cp "$HKB_REPO/scripts/deploy/systemd/Dockerfile" "$ctx/"
  page_block systemd-install >"$ctx/install.sh" || die "systemd: docs/deploy.md has no systemd-install block"
  cp "$HKB_WORK/image/"*.tgz "$ctx/" && cp -a "$HKB_WORK/emulator-image/node_modules" "$ctx/"
  check "systemd: the machine builds with the page's step 1 as written (the package, the seats' user, /etc/hermes-bridge, the units)" \
    dk main build --network host -t hkb-test/systemd "$ctx"
  [ -d "$HKB_WORK/podman/root" ] || podman_setup
  podman_load hkb-test/systemd
  check "systemd: a real systemd boots as PID 1 (podman --systemd=always)" \
    pm run -d --name hkb-systemd --network none --systemd=always --security-opt "seccomp=$SECCOMP_BWRAP" --security-opt unmask=ALL hkb-test/systemd
  check "systemd: the system is up" wait_for 60 sd_up
  check "systemd: the page's step 2 — daemon-reload, the hub service enabled and started" sd_page systemd-enable
  check "systemd: the hub service is active and answers" sx runuser -u hermes-bridge -- env XDG_CACHE_HOME=/var/cache hermes-bridge hubs --wait 30
  check "systemd: the page's step 3 — the seat function makes five seats (two in one lane) and two CLI seats" sd_page systemd-seat "" "$SD_SEATS_CALLS"
  check "systemd: /etc/hermes-bridge 0750 root:hermes-bridge; configs and secrets files 0640 root:hermes-bridge; state dirs 0700 the seats' user under a 0755 /var/lib/hermes-bridge" sd_modes
  check "systemd: the page's login lines (step 4) are the lines init prints for a Claude Code and a Codex seat" sd_login_lines
  sx sh -c 'rm -rf /etc/hermes-bridge/claude-1.* /etc/hermes-bridge/codex-1.* /var/lib/hermes-bridge/claude-1 /var/lib/hermes-bridge/codex-1' || true
  check "systemd: the page's step 5 — each seat's doctor passes as its user, then it is enabled and started" sd_page systemd-start "SEATS='$SD_SEATS'"
  check "systemd: the five units are active" wait_for 30 sd_all_active
  check "systemd: s3's /healthz answers 200" wait_for 60 unit_healthz
  check "systemd: its state is under StateDirectory= (/var/lib/hermes-bridge/s3, 0700, the seat's user), not in a HOME" sx sh -c \
    'test -f /var/lib/hermes-bridge/s3/status.json && test "$(stat -c "%a %U" /var/lib/hermes-bridge/s3)" = "700 hermes-bridge" && test ! -e /home/hermes-bridge/.local/state'
  check "systemd: the CLIs' execute-only images and the hubs go under CacheDirectory= (/var/cache/hermes-bridge, 0700, the seats' user), not in a HOME" sx sh -c \
    'test "$(stat -c "%a %U" /var/cache/hermes-bridge)" = "700 hermes-bridge" && test -S /var/cache/hermes-bridge/hubs/hubs.sock && test ! -e /home/hermes-bridge/.cache/hermes-bridge'
  local ids="$HKB_WORK/systemd-tasks" t s
  : >"$ids"
  for t in 1 2 3 4; do sd_task "pool $t" DEMO:complete pool >>"$ids"; done
  for s in s3 s4 s5; do sd_task "$s's" DEMO:complete "$s" >>"$ids"; done
  check "systemd: 7 tasks over the five seats (a pool of two, three lanes), each done exactly once" sd_check_board "$ids" 120
  check "systemd: one hub for the five seats, started by the hub service and in its unit (hermes-bridge-hubs.service)" sd_hub_in_service
  check "systemd: seats restarted and stopped around s4's running task cut none of its calls (same hub; its task done once; no hub loss in its log)" \
    sd_restarts_cut_nothing
  local t2
  t2=$(sd_task "a long one" "DEMO:slow" s3)
  wait_for 60 sd_status_is "$t2" running || true
  sleep 2
  check "systemd: systemctl stop drains (the bridge stops claiming, stops its run politely, keeps its claim)" sx systemctl stop hermes-bridge@s3
  sx journalctl -u hermes-bridge@s3 --no-pager >"$HKB_WORK/logs/systemd-journal.log" 2>&1 || true
  check "systemd: the journal says the bridge stopped after its drain" grep -q "hermes-kanban-bridge stopped" "$HKB_WORK/logs/systemd-journal.log"
  # shutdown.inFlight: continue (the default): the cut run stays the seat's, and the next start continues it.
  check "systemd: the cut run's claim is kept for the seat's restart (journal: claim kept)" grep -q '"close":"kept"' "$HKB_WORK/logs/systemd-journal.log"
  # pgrep exits 1 when nothing matches (2 and up: it could not look)
  check "systemd: nothing of the seat is left running (KillMode=mixed)" sd_nothing_left s3
  echo "$t2" >"$HKB_WORK/systemd-continued"
  check "systemd: systemctl start again: the seat continues the cut task to done (no human unblock), its run closed" sd_continue "$t2"
  check "systemd: the continued task has exactly one completed run and none open" sd_check_board "$HKB_WORK/systemd-continued" 10
  check "systemd: hermes-bridge fleet (as root, its default root /var/lib/hermes-bridge) lists the five seats, each readable" sd_fleet_five
  sx journalctl --no-pager -u 'hermes-bridge*' >"$HKB_WORK/logs/systemd-units.log" 2>&1 || true
  # The seats only: the hub service's stop waits out TimeoutStopSec (90 s) in this machine — its hubs end at once, but
  # systemd in a container on cgroup v1 never hears its cgroup went empty ('final-sigterm' timed out); podman's stop ends it.
  sx systemctl stop 'hermes-bridge@*' >/dev/null 2>&1 || true
  pm stop -t 10 hkb-systemd >/dev/null 2>&1 || true
}
