# Docker Swarm: a seat pool across two nodes. Each node is a dockerd in a network namespace of its own
# with no default route (nothing can leave the machine), the two joined over a veth pair; images come
# with `docker save | docker load`, services start with --no-resolve-image (no registry lookup) and
# --endpoint-mode dnsrr (this kernel has no IPVS: no VIP, no routing mesh). The board host is a service
# on the overlay network, reachable from both nodes; the bridge pool is a service of 2 replicas, scaled
# to 3, and one node is drained mid-run. Sourced by scripts/test-deploy.sh.
# shellcheck shell=bash

SW_NET=10.213.7
in_ns() { local ns=$1; shift; nsenter "--net=/run/netns/$ns" "$@"; }

swarm_net() {
  local n
  for n in 1 2; do
    ip netns add "hkb-n$n"
    on_exit "ip netns delete hkb-n$n"
    in_ns "hkb-n$n" ip link set lo up
  done
  ip link add hkb-v1 type veth peer name hkb-v2
  on_exit "ip link delete hkb-v1 2>/dev/null || true"
  for n in 1 2; do
    ip link set "hkb-v$n" netns "hkb-n$n"
    in_ns "hkb-n$n" ip addr add "$SW_NET.$n/24" dev "hkb-v$n"
    in_ns "hkb-n$n" ip link set "hkb-v$n" up
  done
}

no_default_route() { ! in_ns "$1" ip route show | grep -q '^default' && ! in_ns "$1" ip -6 route show | grep -q '^default'; }

# seat_status <container on node> <node>: the seat's /status, from inside its container (loopback).
seat_status() {
  dk "$2" exec "$1" node -e "fetch('http://127.0.0.1:9464/status',{headers:{authorization:'Bearer '+process.env.HKB_HTTP_TOKEN}}).then(r=>r.text()).then(t=>process.stdout.write(t))"
}

swarm_board() { local c; c=$(dk n1 ps -q --filter label=com.docker.swarm.service.name=board-host | head -n 1); dk n1 exec -u hermes "$c" hermes "$@"; }

swarm_tasks() {
  local i id
  for ((i = 1; i <= $2; i++)); do
    id=$(swarm_board kanban --board main create "swarm pool $3 $i" --body "DEMO:complete" --assignee pool --json |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))') || die "swarm: could not create a task on the board"
    echo "$id" >>"$1"
  done
}

running_on() { dk n1 service ps seat --filter desired-state=running --format '{{.Node}} {{.CurrentState}}'; }
nodes_ready() { test "$(dk n1 node ls --format '{{.Status}}' | grep -c Ready)" = "$1"; }
# seats_on_nodes <replicas> <nodes>: that many seat tasks running, on that many distinct nodes.
seats_on_nodes() {
  local rows
  rows=$(dk n1 service ps seat --filter desired-state=running --format '{{.Node}} {{.CurrentState}}' | grep Running) || return 1
  test "$(wc -l <<<"$rows")" = "$1" && test "$(awk '{print $1}' <<<"$rows" | sort -u | wc -l)" = "$2"
}
# only_on <node name>: every running seat task is on that node.
only_on() {
  local nodes
  nodes=$(dk n1 service ps seat --filter desired-state=running --format '{{.Node}}' | sort -u)
  echo "seats run on: $nodes"
  test "$nodes" = "$1"
}

swarm_stage() {
  swarm_net
  check "swarm: node 1's namespace has no default route" no_default_route hkb-n1
  check "swarm: node 2's namespace has no default route" no_default_route hkb-n2
  start_dockerd n1 hkb-n1
  start_dockerd n2 hkb-n2
  # One archive (the images share their layers), loaded into both nodes at once.
  dk main save "$BRIDGE_IMAGE" hkb-test/board >"$HKB_WORK/images.tar"
  dk n1 load -q -i "$HKB_WORK/images.tar" >/dev/null &
  dk n2 load -q -i "$HKB_WORK/images.tar" >/dev/null
  wait $!
  rm -f "$HKB_WORK/images.tar"
  dk n1 swarm init --advertise-addr "$SW_NET.1" --listen-addr "$SW_NET.1:2377" --default-addr-pool 10.214.0.0/16 >/dev/null
  dk n2 swarm join --token "$(dk n1 swarm join-token -q worker)" --advertise-addr "$SW_NET.2" --listen-addr "$SW_NET.2:2377" "$SW_NET.1:2377" >/dev/null
  check "swarm: two nodes ready" wait_for 60 nodes_ready 2
  local n2id
  n2id=$(dk n2 info --format '{{.Swarm.NodeID}}')
  dk n1 network create -d overlay --attachable hkb-pool >/dev/null
  dk n1 secret create board_ssh_key "$HKB_WORK/ssh/id_ed25519" >/dev/null
  dk n1 secret create board_known_hosts "$HKB_WORK/ssh/known_hosts" >/dev/null
  printf 'HKB_HTTP_TOKEN=%s\n' "$HKB_TOKEN" >"$HKB_WORK/swarm.env"
  cat >"$HKB_WORK/swarm-seat.yaml" <<EOF
# The pool's seat file (one for every replica): the seat's name from its hostname (seat-<slot>).
boards: [main]
assignee: pool
seat: { onLimit: handoff }
# A drained seat moves to another node, where its node-local state volume is not: it hands its runs back
# at its stop rather than keeping their claims for a restart that will not have them (docs/deploy.md).
shutdown: { inFlight: handback }
agent: { kind: command, command: [node, $DEMO_AGENT], isolation: auto }
hermes: { command: "ssh -i /run/secrets/board_ssh_key -o UserKnownHostsFile=/run/secrets/board_known_hosts -o BatchMode=yes hermes@board-host hermes" }
http: { port: 9464, host: 0.0.0.0, tokenEnv: HKB_HTTP_TOKEN }
EOF
  dk n1 config create seat-yaml "$HKB_WORK/swarm-seat.yaml" >/dev/null
  dk n1 service create --detach --quiet --name board-host --hostname board-host --network hkb-pool --endpoint-mode dnsrr \
    --constraint node.role==manager --no-resolve-image hkb-test/board >/dev/null
  check "swarm: the board host runs" wait_for 90 swarm_board kanban boards list
  # The bridge pool: the shipped image as it is; each replica its own hostname, seat name and state volume.
  dk n1 service create --detach --quiet --name seat --replicas 2 --network hkb-pool --endpoint-mode dnsrr --no-resolve-image \
    --hostname 'seat-{{.Task.Slot}}' --mount 'type=volume,source=seat-state-{{.Task.Slot}},target=/var/lib/hermes-bridge' \
    --config source=seat-yaml,target=/etc/hermes-bridge/seat.yaml \
    --secret source=board_ssh_key,target=board_ssh_key,uid=10001,mode=0400 \
    --secret source=board_known_hosts,target=board_known_hosts,uid=10001,mode=0444 \
    --env-file "$HKB_WORK/swarm.env" --stop-grace-period 60s --placement-pref spread=node.id "$BRIDGE_IMAGE" >/dev/null
  check "swarm: the pool's 2 replicas run, one on each node" wait_for 120 seats_on_nodes 2 2
  local c2
  c2=$(dk n2 ps -q --filter label=com.docker.swarm.service.name=seat | head -n 1)
  check "swarm: the board host answers a seat on node 2 over ssh (the overlay network)" dk n2 exec "$c2" \
    ssh -i /run/secrets/board_ssh_key -o UserKnownHostsFile=/run/secrets/board_known_hosts -o BatchMode=yes hermes@board-host hermes kanban boards list
  local ids="$HKB_WORK/swarm-tasks"
  : >"$ids"
  swarm_tasks "$ids" 10 a
  dk n1 service scale --detach seat=3 >/dev/null
  swarm_tasks "$ids" 10 b
  sleep 5
  dk n1 node update --availability drain "$n2id" >/dev/null
  swarm_tasks "$ids" 10 c
  local bc
  bc=$(dk n1 ps -q --filter label=com.docker.swarm.service.name=board-host | head -n 1)
  check "swarm: 30 tasks over 2→3 seats and a drained node, each done exactly once, none left running" \
    node "$HKB_REPO/scripts/deploy/board-check.mjs" --ids "$ids" --wait 300 -- \
    "$DOCKER_BIN" -H "unix://$HKB_WORK/engines/n1/docker.sock" exec -u hermes "$bc" hermes
  check "swarm: the pool ran 3 seats after the scale-up" wait_for 60 seats_on_nodes 3 1
  running_on >"$HKB_WORK/logs/swarm-placement.log" 2>&1 || true
  check "swarm: after the drain every seat runs on the manager node (hkb-n1)" only_on hkb-n1
  # What the jail does in a Swarm task (no way to relax seccomp or the masked /proc paths there).
  local c
  c=$(dk n1 ps -q --filter label=com.docker.swarm.service.name=seat | head -n 1)
  seat_status "$c" n1 >"$HKB_WORK/logs/swarm-status.json" 2>&1 || true
  node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).seat.isolation; console.log(`swarm seat isolation: ${s.mode} — ${s.why}`)' \
    "$HKB_WORK/logs/swarm-status.json" | tee -a "$HKB_WORK/logs/swarm-isolation.log" || true
  dk n1 exec "$c" bwrap --ro-bind / / --proc /proc --dev /dev --unshare-pid --die-with-parent true >>"$HKB_WORK/logs/swarm-isolation.log" 2>&1 || true
  log "swarm: $(tr '\n' ' ' <"$HKB_WORK/logs/swarm-isolation.log")"
  check "swarm: the seat reports its isolation (auto: no bubblewrap in a Swarm task, said with why)" sh -c \
    "grep -q 'swarm seat isolation: ' '$HKB_WORK/logs/swarm-isolation.log' && ! grep -q 'swarm seat isolation: bwrap' '$HKB_WORK/logs/swarm-isolation.log'"
  # Every seat's own log (the drained node's too, its tasks shut down), kept for a failure's post-mortem.
  dk n1 service logs --raw --timestamps seat >"$HKB_WORK/logs/swarm-seats.log" 2>&1 || true
  dk n1 service rm seat board-host >/dev/null 2>&1 || true
}
