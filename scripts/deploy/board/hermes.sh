#!/bin/sh
# The emulator board host's `hermes` (the real one is /opt/hermes/hermes itself: a Python launcher, so the
# bridge's call server can run it through ssh).
exec /usr/local/bin/node /usr/local/lib/node_modules/hermes-kanban-bridge/dist/emulator/bin.js "$@"
