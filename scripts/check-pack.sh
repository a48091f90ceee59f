#!/usr/bin/env bash
# The published package works on its own: `npm pack` (prepack builds dist), a global install of the
# tarball into a temporary prefix, then the installed `hermes-bridge --version` and `demo` run from
# outside the repository. Then the seat's install: --omit=optional (no better-sqlite3, the bundled
# emulator's native driver) with no compiler on PATH, and `run --once` against an external board command.
# Slow (the first install builds better-sqlite3): run by .ci/run, not by npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/hkb-pack-XXXXXX")
# As root the agent runs as uid 65534 (agent.isolation.user): it must pass the state dir's parents.
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
echo "packed $tarball ($(du -k "$work/$tarball" | cut -f1) KiB)"
listing=$(tar -tzf "$work/$tarball")
for f in dist/cli/main.js dist/emulator/bin.js dist/jail/relay.py dist/jail/relay.mjs examples/demo-agent.mjs prompts/task.md prompts/continue.md config.example.yaml \
  deploy/Dockerfile deploy/compose.yaml deploy/prometheus/hermes-bridge.rules.yml deploy/grafana/hermes-bridge.json; do
  grep -qx "package/$f" <<<"$listing" || { echo "the tarball has no $f" >&2; exit 1; }
done
# A global install has no package.json of its own for npm 11's allowScripts policy: the install script it
# allows (better-sqlite3's build) is named on the command line, so npm has nothing to warn about.
npm install --global --prefix "$work/prefix" --no-audit --no-fund --allow-scripts=better-sqlite3 "$work/$tarball" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; exit 1; }
if grep -q "allow-scripts" "$work/install.log"; then cat "$work/install.log" >&2; echo "npm warned about install scripts" >&2; exit 1; fi
bin="$work/prefix/bin/hermes-bridge"
want=$(node -p 'require("./package.json").version')
cd "$work"
got=$("$bin" --version)
[ "$got" = "$want" ] || { echo "installed hermes-bridge --version printed '$got', expected '$want'" >&2; exit 1; }
echo "installed hermes-bridge --version: $got"
out=$("$bin" demo 2>&1) || { echo "$out" >&2; echo "the installed demo failed" >&2; exit 1; }
echo "$out" | tail -n 12
# The fleet view of the installed CLI over an empty state root (no config needed).
state="$work/state"; mkdir -p "$state"
"$bin" fleet --root "$state" --json >/dev/null || { echo "the installed fleet command failed" >&2; exit 1; }
echo "installed hermes-bridge fleet: ok"

# The seat's install: no optional dependency, no compiler, no Python on PATH (node-gyp would need them).
nocc="$work/nocc-bin"
mkdir -p "$nocc"
for t in node npm npx sh bash env cat ls rm mkdir cp mv chmod ln tar gzip uname id git dirname basename readlink sed; do
  p=$(command -v "$t") && ln -s "$p" "$nocc/$t"
done
for t in make cc gcc g++ c++ python3; do [ ! -e "$nocc/$t" ] || { echo "$t leaked into the no-compiler PATH" >&2; exit 1; }; done
PATH="$nocc" npm install --global --prefix "$work/seat" --no-audit --no-fund --omit=optional "$work/$tarball" >"$work/seat-install.log" 2>&1 ||
  { cat "$work/seat-install.log" >&2; echo "the no-compiler install failed" >&2; exit 1; }
# The one native module is @napi-rs/xattr's prebuilt binary (the give-back's ACLs, issue 50): installed, never built.
[ -z "$(find "$work/seat/lib/node_modules/hermes-kanban-bridge" -name '*.node' -not -path '*/node_modules/@napi-rs/xattr*')" ] ||
  { find "$work/seat/lib/node_modules/hermes-kanban-bridge" -name '*.node' >&2; echo "a native module other than @napi-rs/xattr's prebuilt one was installed" >&2; exit 1; }
[ ! -e "$work/seat/lib/node_modules/hermes-kanban-bridge/node_modules/better-sqlite3" ] || { echo "better-sqlite3 came along" >&2; exit 1; }
echo "no-compiler install (--omit=optional): ok"
seat="$work/seat/bin/hermes-bridge"
# Its demo needs the emulator's driver, and says so.
if PATH="$nocc" "$seat" demo >"$work/seat-demo.log" 2>&1; then echo "the demo ran without better-sqlite3?" >&2; exit 1; fi
grep -q "needs better-sqlite3, an optional dependency" "$work/seat-demo.log" || { cat "$work/seat-demo.log" >&2; exit 1; }
# The daemon itself: one task on an external board (the repository's emulator, a command of its own).
board=(node "$repo/dist/emulator/bin.js")
export HERMES_HOME="$work/board"
"${board[@]}" kanban boards create main >/dev/null
task=$("${board[@]}" kanban --board main create "no compiler" --body "DEMO:complete" --assignee seat --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')
cat >"$work/seat.yaml" <<EOF
boards: [main]
assignee: seat
agent: { kind: command, command: [node, $work/seat/lib/node_modules/hermes-kanban-bridge/examples/demo-agent.mjs] }
hermes: { command: [node, $repo/dist/emulator/bin.js], home: $work/board }
stateDir: $work/seat-state
discovery: { watch: false }
EOF
PATH="$nocc" "$seat" run --config "$work/seat.yaml" --once >"$work/seat-run.log" 2>&1 || { cat "$work/seat-run.log" >&2; echo "run --once failed" >&2; exit 1; }
status=$("${board[@]}" kanban --board main show "$task" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).task.status))')
[ "$status" = done ] || { cat "$work/seat-run.log" >&2; echo "the task is $status, not done" >&2; exit 1; }
echo "the no-compiler seat ran a task on an external board: $task $status"
echo "pack check ok"
