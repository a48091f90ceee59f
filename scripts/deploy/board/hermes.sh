#!/bin/sh
# The board host's `hermes`: the real CLI when the image has its source, else the bundled emulator.
if [ "$(cat /etc/hermes-flavour)" = real ]; then exec /usr/bin/python3 /opt/hermes/hermes "$@"; fi
exec /usr/local/bin/node /usr/local/lib/node_modules/hermes-kanban-bridge/dist/emulator/bin.js "$@"
