# Test-only: the shipped image plus the bundled emulator's native driver (better-sqlite3), which the
# shipped image leaves out (no compiler there). The driver is the one `npm ci` built on this machine —
# the same Node 20 and the same Debian bookworm glibc as the base — copied in, so the demo and an
# emulator board run in a container without a compiler or a prebuilt-binary download.
FROM hermes-bridge:0.1.0
USER root
COPY node_modules/ /usr/local/lib/node_modules/hermes-kanban-bridge/node_modules/
USER bridge
