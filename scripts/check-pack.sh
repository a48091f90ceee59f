#!/usr/bin/env bash
# The published package works on its own: `npm pack` (prepack builds dist), a global install of the
# tarball into a temporary prefix, then the installed `hermes-bridge --version` and `demo` run from
# outside the repository. Slow (the install builds better-sqlite3): run by .ci/run, not by npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/hkb-pack-XXXXXX")
trap 'rm -rf "$work"' EXIT
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
echo "packed $tarball ($(du -k "$work/$tarball" | cut -f1) KiB)"
listing=$(tar -tzf "$work/$tarball")
for f in dist/cli/main.js dist/emulator/bin.js examples/demo-agent.mjs prompts/task.md prompts/continue.md config.example.yaml \
  deploy/Dockerfile deploy/compose.yaml deploy/prometheus/hermes-bridge.rules.yml deploy/grafana/hermes-bridge.json; do
  grep -qx "package/$f" <<<"$listing" || { echo "the tarball has no $f" >&2; exit 1; }
done
npm install --global --prefix "$work/prefix" --no-audit --no-fund --loglevel=error "$work/$tarball" >/dev/null
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
echo "pack check ok"
