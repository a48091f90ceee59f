# The first process of every bubblewrap jail, as relay.mts is, in the host's own Python (standard library
# only, run `python3 -I -S`: no site, no PYTHON* variables, no path of the jail's on sys.path): the same
# contract, argv for argv, in about a fifth of a Node start — it starts once per run (relay.ts picks it where
# /usr/bin/python3 is; relay.mts stays the relay elsewhere, and the `--connect` client of git's ssh).
# pid 2 under bubblewrap's init: it runs the agent's command as its child, sharing its stdio and its process
# group, ignores the polite stop itself (the agent gets it), and ends as the agent ends.
# `--lifeline <fd>`: the bridge holds the other end and writes one byte as it starts the jail; the child
# starts only once that byte is read. End of file there (the bridge is gone, even SIGKILLed before bubblewrap
# armed --die-with-parent): everything of the jail is killed and the relay exits 137.
# `--stream <fd>`: the child's stdout is that descriptor; the relay closes its own copy once the child has it.
# With the network of the bridge's proxy: listens on 127.0.0.1:<port> and carries each connection to the
# bound unix socket byte for byte, before the child starts; `--forward host:port` (repeated) listens at an
# allowed host loopback address and carries each connection as a CONNECT through the proxy.
#   python3 -I -S relay.py <port> <socket> [--forward <host:port>]… [--stream <fd>] [--lifeline <fd>] -- <program> [args…]
#   python3 -I -S relay.py --no-network [--stream <fd>] [--lifeline <fd>] -- <program> [args…]
import errno
import os
import re
import signal
import socket
import stat
import sys
import threading
import time

# Where the jail keeps the operator's NODE_OPTIONS for the relay's child (relay.ts RELAY_CHILD_NODE_OPTIONS).
CHILD_NODE_OPTIONS = b"HKB_RELAY_CHILD_NODE_OPTIONS"
# What the relay ignores itself (the agent gets them, with every other signal, at their defaults). SIGUSR1 too:
# Node's relay ignores it (no debugger), and a `kill -USR1 0` of a tool must not end the jail.
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)
# Two small threads per connection: a flood of connections within the jail's caps (rlimit's data and
# process counts) must not leave the relay unable to carry the CLI's own.
threading.stack_size(256 * 1024)

def say(text):
    try:
        os.write(2, ("hkb-relay: %s\n" % text).encode("utf-8", "replace"))
    except OSError:
        pass

class Pair:
    """A connection and its other end: the first direction to end shuts both down; the second closes them
    (a descriptor is never closed while the other direction may still be in a call on it)."""

    def __init__(self, c, up):
        self.c, self.up, self.left, self.lock = c, up, 2, threading.Lock()

    def done(self):
        with self.lock:
            self.left -= 1
            last = self.left == 0
        for s in (self.c, self.up):
            try:
                s.shutdown(socket.SHUT_RDWR) if not last else s.close()
            except OSError:
                pass

def pipe(pair, a, b):
    """Copies a → b until either side ends."""
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    pair.done()

def both_ways(c, up, rest=b""):
    try:
        if rest:
            c.sendall(rest)
    except OSError:
        c.close()
        up.close()
        return
    pair = Pair(c, up)
    for a, b in ((c, up), (up, c)):
        try:
            threading.Thread(target=pipe, args=(pair, a, b), daemon=True).start()
        except RuntimeError:  # no thread to be had now: this connection is dropped, the next is served
            pair.done()

def carry(c, path, target=None):
    """A connection to the relay's port: to the proxy's socket, byte for byte. With a target (an allowed host
    service, --forward): a CONNECT through the proxy first, and only its 200 lets the bytes through."""
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    rest = b""
    try:
        up.connect(path)
        if target is not None:
            up.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode("latin-1"))
            head = b""
            while b"\r\n\r\n" not in head:
                data = up.recv(65536)
                if not data or len(head) > 65536:
                    raise OSError("no answer")
                head += data
            if not re.match(rb"HTTP/1\.[01] 200", head):
                raise OSError("refused")
            rest = head[head.index(b"\r\n\r\n") + 4 :]
    except OSError:
        c.close()
        up.close()
        return
    both_ways(c, up, rest)

# The listeners are bound before the child starts (a connection waits in the backlog); their threads start
# after the fork, so the relay forks with one thread.
SERVING = []

def serve(listener, handle, *args):
    def loop():
        while True:
            try:
                c, _ = listener.accept()
            except OSError as e:
                if e.errno in (errno.EBADF, errno.EINVAL):
                    return
                time.sleep(0.05)  # out of descriptors or memory for now: the listener stays
                continue
            try:
                threading.Thread(target=handle, args=(c, *args), daemon=True).start()
            except RuntimeError:
                c.close()
                time.sleep(0.05)

    SERVING.append(loop)

def listen(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(511)
    return s

def forward(target, path):
    m = re.fullmatch(r"(127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|localhost):([0-9]{1,5})", target)
    if not m:
        return
    at = "127.0.0.1" if m.group(1) == "localhost" else m.group(1)
    try:
        serve(listen(at, int(m.group(2))), carry, path, target)
    except (OSError, OverflowError) as e:
        say("cannot listen on %s for the allowed host service: %s" % (target, e.strerror or e))

def environment():
    """The environment the relay was given, as bytes: Python's own start may have added LC_CTYPE (its C-locale
    coercion, PEP 538) to os.environ, which the child must not get."""
    try:
        with open("/proc/self/environ", "rb") as f:
            return dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
    except OSError:
        return dict(os.environb)

def in_jail_pid_namespace():
    """Whether this process runs in a pid namespace of its own whose init is bubblewrap (kill(-1) reaches only it)."""
    try:
        with open("/proc/1/comm") as f:
            return f.read() == "bwrap\n"
    except OSError:
        return False

def run(argv, stream, lifeline):
    if not argv:
        os._exit(125)
    for s in STOPS:
        signal.signal(s, lambda *_: None)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # (inherited ignored, waitpid would never see the child)
    if lifeline is not None:
        try:
            if not stat.S_ISSOCK(os.fstat(lifeline).st_mode):
                raise OSError("not a socket")
            os.set_inheritable(lifeline, False)
        except OSError as e:
            say("--lifeline %d is no socket of the bridge's: %s" % (lifeline, e.strerror or e))
            os._exit(125)
    child = [None]

    def gone():
        say("the bridge is gone; the jail ends")
        # Everything of the jail, not only the child: in the jail's own pid namespace that is every process
        # but init and the relay.
        try:
            if in_jail_pid_namespace():
                os.kill(-1, signal.SIGKILL)
            elif child[0] is not None:
                os.kill(child[0], signal.SIGKILL)
        except OSError:
            pass
        os._exit(137)

    # The child starts once the bridge's first byte is read, and only if the lifeline has not ended.
    if lifeline is not None:
        try:
            first = os.read(lifeline, 1)
        except OSError:
            first = b""
        if not first:
            gone()
    env = environment()
    if CHILD_NODE_OPTIONS in env:
        env[b"NODE_OPTIONS"] = env.pop(CHILD_NODE_OPTIONS)
    # A polite stop that comes while the child is being made waits for it (blocked across the fork).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    pid = os.fork()
    if pid == 0:
        try:
            # As Node's spawn leaves it: every signal at its default, none blocked, only stdio 0-2.
            for s in range(1, signal.NSIG):
                if s not in (signal.SIGKILL, signal.SIGSTOP):
                    try:
                        signal.signal(s, signal.SIG_DFL)
                    except (OSError, ValueError):
                        pass
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            if stream is not None:
                os.dup2(stream, 1)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            os.execvpe(argv[0], argv, env)
        except BaseException as e:
            say("%s could not be started: %s" % (argv[0], getattr(e, "strerror", None) or e))
        os._exit(127)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    child[0] = pid
    for loop in SERVING:
        threading.Thread(target=loop, daemon=True).start()
    # The child has it as its stdout; the relay keeps none.
    if stream is not None:
        try:
            os.close(stream)
        except OSError:
            pass
    if lifeline is not None:

        def watch():
            while True:
                try:
                    if not os.read(lifeline, 4096):
                        break
                except OSError:
                    break
            gone()

        threading.Thread(target=watch, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)  # (SIGKILL and SIGSTOP have no handler to reset)
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

def main(args):
    bare = args[:1] == ["--no-network"]
    sep = args.index("--") if "--" in args else -1
    opts = args[(1 if bare else 2) : (sep if sep != -1 else len(args))]

    def values(flag):
        return [a for i, a in enumerate(opts) if i > 0 and opts[i - 1] == flag]

    def fd(flag):
        v = values(flag)
        if not v:
            return None
        if len(v) > 1 or not re.fullmatch(r"[0-9]{1,4}", v[0]) or int(v[0]) < 3:
            say("%s takes one descriptor above 2, not %s" % (flag, ", ".join(v)))
            os._exit(125)
        return int(v[0])

    argv = args[sep + 1 :] if sep != -1 else []
    stream, lifeline = fd("--stream"), fd("--lifeline")
    if not bare:
        port, path = args[0] if args else "", args[1] if len(args) > 1 else ""
        for f in values("--forward"):
            forward(f, path)
        try:
            if not re.fullmatch(r"[0-9]{1,5}", port):
                raise ValueError("not a port")
            serve(listen("127.0.0.1", int(port)), carry, path)
        except (OSError, ValueError, OverflowError) as e:
            say("cannot listen on 127.0.0.1:%s: %s" % (port, getattr(e, "strerror", None) or e))
            os._exit(125)
    run(argv, stream, lifeline)

main(sys.argv[1:])
