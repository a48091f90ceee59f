#!/usr/bin/env bash
# Sets up the REAL Hermes Agent CLI (public source, MIT) for the real-CLI test lane and bench.
#   1. get the public source of JetBrains/hermes-agent as a git dir (DEVELOPERS.md says how)
#   2. scripts/setup-real-hermes.sh <that git dir> [target dir, default .real-hermes]
#   3. export HERMES_BIN="/usr/bin/python3 <target>/hermes"   (Debian's python3, not another one)
# Keep the target dir git-ignored. Each CLI call is a Python process (0.3–0.9 s); use a fresh
# HERMES_HOME (and HOME) per test board.
set -euo pipefail
src=${1:?usage: setup-real-hermes.sh <hermes-agent git dir> [target dir]}
dst=${2:-.real-hermes}
mkdir -p "$dst"
git --git-dir="$src" archive HEAD | tar -x -C "$dst" \
  --exclude=apps --exclude=website --exclude=tests --exclude=web --exclude=ui-tui --exclude=assets
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq python3-rich python3-yaml python3-dotenv python3-httpx python3-ruamel.yaml \
  python3-jinja2 python3-prompt-toolkit python3-croniter python3-tenacity python3-fire python3-requests \
  python3-packaging python3-markdown >/dev/null
home=$(mktemp -d)
HERMES_HOME=$home HOME=$home /usr/bin/python3 "$dst/hermes" --version | head -1
echo "export HERMES_BIN=\"/usr/bin/python3 $(cd "$dst" && pwd)/hermes\""
