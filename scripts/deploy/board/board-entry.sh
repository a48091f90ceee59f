#!/bin/sh
# The board container: make the board once (as the hermes user, in its own HERMES home), then sshd.
set -e
su hermes -s /bin/sh -c 'hermes kanban boards create main >/dev/null 2>&1 || true'
su hermes -s /bin/sh -c 'hermes kanban boards list' >/dev/null
exec /usr/sbin/sshd -D -e
