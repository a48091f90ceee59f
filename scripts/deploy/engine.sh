# The lane's own Docker engines and its base image (sourced by scripts/test-deploy.sh).
# shellcheck shell=bash

# Debian's docker.io: the client is /usr/bin/docker (a newer client elsewhere on PATH is not the one
# this engine ships with); BuildKit off — the classic builder never looks a FROM image up in a
# registry when the image is there locally.
DOCKER_BIN=/usr/bin/docker
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0

# dk <engine> <docker args…>: the docker client of one of the lane's engines.
dk() {
  local name=$1
  shift
  DOCKER_HOST="unix://$HKB_WORK/engines/$name/docker.sock" "$DOCKER_BIN" "$@"
}

# start_dockerd <name> [netns]: a dockerd with its own socket, data root, exec root and pidfile, no
# iptables rules, no ip_forward, overlay2; in a network namespace when one is named — entered with
# `nsenter --net=` only (`ip netns exec` would also remount /sys and hide the cgroup mounts dockerd needs).
# Registry guard: the daemon's HTTP(S) proxy is a closed loopback port, so a pull that anything might
# attempt fails on this machine — no registry is contacted, not even its name looked up (the proxy gets
# the name). The builds' RUN steps do not inherit the daemon's environment.
start_dockerd() {
  local name=$1 ns=${2:-} dir="$HKB_WORK/engines/$1"
  mkdir -p "$dir/data" "$dir/exec"
  local -a cmd=(dockerd --host "unix://$dir/docker.sock" --data-root "$dir/data" --exec-root "$dir/exec"
    --pidfile "$dir/dockerd.pid" --iptables=false --ip-forward=false --ip-masq=false --storage-driver=overlay2
    --log-level=warn)
  # The engine in the host's namespace makes no docker0 there: builds use --network host, compose its own network.
  [ -z "$ns" ] && cmd+=(--bridge=none)
  # A node in a namespace gets a host name of its own too (Swarm names nodes by it): its own UTS namespace.
  [ -n "$ns" ] && cmd=(nsenter "--net=/run/netns/$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "${cmd[@]}")
  HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= \
    setsid "${cmd[@]}" >"$dir/dockerd.log" 2>&1 </dev/null &
  echo $! >"$dir/launcher.pid"
  on_exit "stop_dockerd $name"
  wait_for 60 dk "$name" version || { tail -n 30 "$dir/dockerd.log"; die "dockerd $name did not start"; }
  log "dockerd $name up (pid $(cat "$dir/dockerd.pid")${ns:+, netns $ns})"
}

stop_dockerd() {
  local name=$1 dir="$HKB_WORK/engines/$1"
  [ -d "$dir" ] || return 0
  if dk "$name" info >/dev/null 2>&1; then
    dk "$name" swarm leave --force >/dev/null 2>&1 || true
    local ids
    ids=$(dk "$name" ps -aq 2>/dev/null || true)
    [ -n "$ids" ] && dk "$name" rm -f $ids >/dev/null 2>&1
  fi
  kill_pid "$dir/dockerd.pid" 30
  kill_pid "$dir/launcher.pid" 5
  # containerd, its shims: started by this dockerd, recorded under its exec root.
  local p
  for p in "$dir"/exec/containerd/containerd.pid; do [ -f "$p" ] && kill_pid "$p" 10; done
  umount_under "$dir"
}

# The base image stand-in for node:20-bookworm-slim (no image registry is reachable): Debian bookworm
# minbase from the Debian mirror, this machine's Node 20 and npm laid out as the official image does
# (/usr/local), and what this machine's npm needs to reach its registry (its CA bundle, its cafile).
make_base() {
  local root="$HKB_WORK/base/rootfs" tar="$HKB_WORK/base/debootstrap.tar"
  mkdir -p "$root"
  local cached="${HKB_DEPLOY_CACHE:+$HKB_DEPLOY_CACHE/bookworm-minbase.tar}"
  if [ -n "$cached" ] && [ -s "$cached" ]; then
    log "base: the debootstrap tarball from the cache ($cached)"
    tar -C "$root" -xf "$cached"
  else
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$HKB_WORK/logs/debootstrap.log" 2>&1 ||
      { tail -n 20 "$HKB_WORK/logs/debootstrap.log"; die "debootstrap failed"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    if [ -n "$cached" ]; then mkdir -p "$HKB_DEPLOY_CACHE" && tar -C "$root" -cf "$cached.tmp" . && mv "$cached.tmp" "$cached"; fi
  fi
  local node
  node=$(readlink -f "$(command -v node)")
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/usr/local/include" "$root/usr/local/etc" \
    "$root/usr/local/share/ca-certificates"
  install -m 0755 "$node" "$root/usr/local/bin/node"
  cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  [ -d /usr/include/node ] && cp -a /usr/include/node "$root/usr/local/include/node"
  # ca-certificates (installed by the Dockerfile) folds this file into /etc/ssl/certs/ca-certificates.crt.
  cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/machine-bundle.crt"
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n' >"$root/usr/local/etc/npmrc"
  tar -C "$root" -cf "$tar" .
  rm -rf "$root"
  log "base: $(du -m "$tar" | cut -f1) MiB rootfs (node $("$node" --version), npm $(npm --version))"
}

# import_base <engine>: the base tarball under the name deploy/Dockerfile's FROM uses.
import_base() {
  dk "$1" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$(node --version | tr -d v)" \
    --change 'CMD ["node"]' \
    "$HKB_WORK/base/debootstrap.tar" "$BASE_IMAGE" >/dev/null
}
