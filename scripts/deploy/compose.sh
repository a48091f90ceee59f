# Compose: the shipped deploy/compose.yaml (three seats, their state volumes, secrets, privileged for the
# jail) with the lane's board host beside it; the seats reach the board over ssh. docs/deploy.md's compose
# steps are run as the page has them (its `compose-up` block), through a docker-compose that adds the lane's
# engine, project and board host file; the seats' host ports are free ones (HKB_*_PORT, which compose.yaml
# reads), never a fixed port another program may hold. Sourced by test-deploy.sh.
# shellcheck shell=bash

dc() { DOCKER_HOST="unix://$HKB_WORK/engines/main/docker.sock" command docker-compose -p hkb -f compose.yaml -f compose.test.yaml "$@"; }

# The page's block, with `docker-compose -f compose.yaml …` meaning the lane's dc (the same file, and the
# board host's beside it). Anything else of the block runs as written.
COMPOSE_SHIM='docker-compose() {
  local a=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -f ] && [ "${2:-}" = compose.yaml ]; then shift 2; else a+=("$1"); shift; fi
  done
  DOCKER_HOST="unix://$HKB_WORK/engines/main/docker.sock" command docker-compose -p hkb -f compose.yaml -f compose.test.yaml "${a[@]}"
}'
page_compose() { bash -c "set -euo pipefail; $COMPOSE_SHIM
$(page_block compose-up)"; }

# The page's preparation (compose-prepare), run as written from the copy's parent (a clone's root) with the lane's
# parts in place of the operator's: `npm pack` is the lane's tarball, ~/.ssh/board_ed25519 and `ssh-keyscan
# board-host` the lane's key and its board host's key (a compose service, no name on this host), and `build` is
# `config -q` — the image is the lane's own build of deploy/Dockerfile (image stage); config reads every env_file
# as a build does (docker-compose 1.29 refuses both while one is missing: the page once built before making them).
COMPOSE_PREP_SHIM='npm() { [ "$1 $2" = "pack --pack-destination" ] && cp "$HKB_WORK/image/"*.tgz "$3"; }
ssh-keyscan() { [ "$1" = board-host ] && cat "$HKB_WORK/ssh/known_hosts"; }
docker-compose() {
  local a=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -f ] && [ "${2:-}" = compose.yaml ]; then shift 2; else a+=("$1"); shift; fi
  done
  [ "${a[0]:-}" = build ] && a=(config -q)
  DOCKER_HOST="unix://$HKB_WORK/engines/main/docker.sock" command docker-compose -p hkb -f compose.yaml -f compose.test.yaml "${a[@]}"
}'
compose_prepare() {
  mkdir -p "$HKB_WORK/home/.ssh" && cp "$HKB_WORK/ssh/id_ed25519" "$HKB_WORK/home/.ssh/board_ed25519"
  (cd "$1" && HOME="$HKB_WORK/home" bash -c "set -euo pipefail; $COMPOSE_PREP_SHIM
$(page_block compose-prepare)") || return
  # what it made: the secrets files (0600) and the board key the image's user (10001) reads
  local s
  for s in claude-1 claude-2 codex-1; do [ "$(stat -c %a "$1/deploy/seats/$s.env")" = 600 ] || { echo "seats/$s.env is not 0600"; return 1; }; done
  [ "$(stat -c '%u %a' "$1/deploy/seats/ssh/id_ed25519")" = "10001 600" ] && test -s "$1/deploy/seats/ssh/known_hosts" && test -s "$1/deploy/hermes-kanban-bridge-0.1.0.tgz"
}
# The block's last line is the /healthz code its curl printed.
compose_page_up() {
  local out rc=0
  out=$(page_compose 2>&1) || rc=$?
  printf '%s\n' "$out"
  [ "$rc" = 0 ] && [ "$(tail -n 1 <<<"$out")" = 200 ]
}
board() { dk main exec -u hermes hkb_board-host_1 hermes "$@"; }

# new_tasks <file> <assignee> <n> <body>: tasks on the board's `main`, their ids appended to <file>.
new_tasks() {
  local i id
  for ((i = 1; i <= $3; i++)); do
    id=$(dk main exec -u hermes hkb_board-host_1 hermes kanban --board main create "deploy lane $2 $i" --body "$4" --assignee "$2" --json |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))') || die "compose: could not create a task on the board"
    echo "$id" >>"$1"
  done
}

board_check() { node "$HKB_REPO/scripts/deploy/board-check.mjs" --ids "$1" --wait "$2" ${3:+"$3"} -- "$DOCKER_BIN" -H "unix://$HKB_WORK/engines/main/docker.sock" exec -u hermes hkb_board-host_1 hermes; }

http_code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

compose_stage() {
  local p="$HKB_WORK/compose/deploy" s
  mkdir -p "$p" && cp -a "$HKB_REPO/deploy/." "$p/" && cp "$HKB_REPO/scripts/deploy/compose.test.yaml" "$p/"
  check "compose: the page's preparation (docs/deploy.md compose-prepare) — secrets files before any docker-compose command, the board key the image's user reads" \
    compose_prepare "$HKB_WORK/compose"
  cd "$p"
  # The shipped seat files with the demo agent (the command kind: there are no model credentials here)
  # and no webhook (its host is an example); everything else as shipped: ssh to the board, token, fleet.
  # Each seat's secrets file filled in as the page says (the token; no login: the demo agent needs none).
  for s in claude-1 claude-2 codex-1; do
    sed -e "s#^agent: .*#agent: { kind: command, command: [node, $DEMO_AGENT], isolation: bwrap }#" -e '/^webhook:/d' \
      "$HKB_REPO/deploy/seats/$s.yaml" >"seats/$s.yaml"
    printf 'HKB_HTTP_TOKEN=%s\n' "$HKB_TOKEN" >"seats/$s.env"
  done
  on_exit "cd '$p' && { dc logs --no-color >'$HKB_WORK/logs/compose-containers.log' 2>&1; dc down -v --remove-orphans -t 5; }"
  HKB_CLAUDE_1_PORT=$(free_port) HKB_CLAUDE_2_PORT=$(free_port) HKB_CODEX_1_PORT=$(free_port)
  export HKB_CLAUDE_1_PORT HKB_CLAUDE_2_PORT HKB_CODEX_1_PORT HKB_WORK
  log "compose: the seats' host ports $HKB_CLAUDE_1_PORT $HKB_CLAUDE_2_PORT $HKB_CODEX_1_PORT (free ones)"
  page_block compose-up >"$HKB_WORK/logs/compose-page-block.sh" || die "compose: docs/deploy.md has no compose-up block"
  check "compose: the page's steps (docs/deploy.md compose-up) — up, claude-1's /healthz 200 on its published port" compose_page_up
  check "compose: the three seats answer /healthz 200" wait_for 90 sh -c \
    "for p in $HKB_CLAUDE_1_PORT $HKB_CLAUDE_2_PORT $HKB_CODEX_1_PORT; do [ \"\$(curl -s -o /dev/null -w %{http_code} http://127.0.0.1:\$p/healthz)\" = 200 ] || exit 1; done"
  local ids="$HKB_WORK/compose-tasks"
  : >"$ids"
  new_tasks "$ids" claude 6 "DEMO:complete"
  new_tasks "$ids" codex 2 "DEMO:complete"
  check "compose: 8 tasks on the real board, each done exactly once (the claude pool of two, the codex lane)" board_check "$ids" 180
  local c1="http://127.0.0.1:$HKB_CLAUDE_1_PORT"
  check "compose: /status 401 without the token" test "$(http_code "$c1/status")" = 401
  check "compose: /status 200 with the token" test "$(http_code -H "Authorization: Bearer $HKB_TOKEN" "$c1/status")" = 200
  curl -s -H "Authorization: Bearer $HKB_TOKEN" "$c1/status" >"$HKB_WORK/logs/compose-status.json"
  check "compose: the seat's agents are jailed (status: isolation bwrap)" json_is "$HKB_WORK/logs/compose-status.json" seat.isolation.mode bwrap
  curl -s -H "Authorization: Bearer $HKB_TOKEN" "$c1/" >"$HKB_WORK/logs/compose-fleet.html"
  # …each read: a seat whose /status the fleet cannot read is a row `unreadable` naming why (a why too long for it did so)
  check "compose: the fleet page of claude-1 lists claude-2 and codex-1, each read" sh -c \
    "grep -q claude-2 '$HKB_WORK/logs/compose-fleet.html' && grep -q codex-1 '$HKB_WORK/logs/compose-fleet.html' && ! grep -q 'not a status snapshot' '$HKB_WORK/logs/compose-fleet.html'"
  restart_case
  cd "$HKB_REPO"
}

# A seat container killed (SIGKILL, no drain) mid-run and started again: its task continues by itself —
# the restart-continuation of the bridge's own cuts (DESIGN "No human for the bridge's own cuts").
restart_case() {
  local ids="$HKB_WORK/restart-task"
  : >"$ids"
  new_tasks "$ids" codex 1 "DEMO:slow"
  local id
  id=$(cat "$ids")
  wait_for 60 sh -c "$DOCKER_BIN -H unix://$HKB_WORK/engines/main/docker.sock exec -u hermes hkb_board-host_1 hermes kanban --board main show $id --json | grep -q '\"status\": \"running\"'" ||
    log "the slow task did not start running"
  sleep 3 # the agent is working (30 s of steps): cut it mid-run
  dk main kill hkb_codex-1_1 >/dev/null
  dk main start hkb_codex-1_1 >/dev/null
  check "restart-continuation: a seat killed mid-run and started again continues its task (done once, no human unblock)" board_check "$ids" 150 --until-done
}
