# hermes-kanban-bridge call server: runs `hermes kanban` calls without a Python start per call.
# Standard library only. Started once per board command by the bridge (locally, or through the same
# `ssh ...` prefix as hermes.command) as `python3 -c <this file> -- <the hermes command>`. It imports
# the Hermes CLI from the launcher the command names once, then forks one child per call, in which it
# sets argv, the call's environment and stdio, and runs the launcher as `__main__` — the CLI's own
# main(), the same code a plain process runs. It is started isolated (`python3 -I`: no cwd, no PYTHON*
# variables, no user site on sys.path) from `/` (locally; `cd / &&` through ssh), so no file where the
# bridge happens to run can be imported in its place. A call's child keeps only its own stdio, and dies
# with the server (PR_SET_PDEATHSIG): a call the bridge gave up on cannot take effect later.
# Protocol: JSON lines on stdin/stdout.
#   <- {"id": n, "argv": [...], "env": {...}, "cap": bytes}     run a call (argv after the launcher) with
#                                                               that environment ("inherit": true: on top of
#                                                               the server's own, as through ssh)
#   <- {"id": n, "op": "kill"}                                  stop that call's child (its process group)
#   -> {"event": "ready", "host": ..., "pid": ..., "python": ..., "reexec": path|null}   once, when warm;
#                                                               `reexec`: the launcher replaced its process with
#                                                               another program (a lazy install re-executing into
#                                                               a package manager's Python): no warm server helps
#   -> {"id": n, "event": "started", "pid": child, "t": secs}   before the call runs (a claim's lock names it;
#                                                                a read's is its worker's, below); `t`: this
#                                                                host's time then, in epoch seconds (a lock's
#                                                                claim from before it was another process's)
#   -> {"id": n, "event": "done", "code": c, "signal": s, "stdout": b64, "stderr": b64, "truncated": bool}
#   -> {"id": n, "event": "stale"}                               the install changed on disk: not run; the
#                                                                server exits once its calls are done
# The server exits when its stdin closes (after its calls end).
# Calls start through a queue: at most one per CPU at a time while they are young (a call that has run
# HOLD seconds frees its slot), heartbeats first, then claims, then the rest in arrival order — a burst
# of calls (twenty seats' claims at once) ends one after another instead of all together at the end, a
# heartbeat never waits behind a burst, and a claim not behind the reads and closes of the runs that
# started before it. A call killed while it waits never runs.
import atexit
import base64
import ctypes
import importlib.util
import json
import os
import re
import runpy
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback


def resolve(parts):
    """(interpreter, launcher, extra argv) of a hermes command."""
    if not parts:
        raise SystemExit("hermes_callserver: no hermes command given")
    prog = parts[0]
    if re.match(r"^python[0-9.]*$", os.path.basename(prog)):
        return shutil.which(prog) or prog, parts[1], parts[2:]
    launcher = prog if "/" in prog else shutil.which(prog)
    if not launcher:
        raise SystemExit("hermes_callserver: %s not found on PATH" % prog)
    with open(launcher, "rb") as f:
        first = f.readline(256).decode("utf-8", "replace").strip()
    if not first.startswith("#!") or "python" not in first:
        raise SystemExit("hermes_callserver: %s is not a Python launcher" % launcher)
    words = first[2:].split()
    interp = shutil.which(words[1]) if os.path.basename(words[0]) == "env" and len(words) > 1 else words[0]
    return interp or sys.executable, launcher, parts[1:]


args = sys.argv[1:]
if args and args[0] == "--":
    args = args[1:]
INTERP, LAUNCHER, EXTRA = resolve(args)
if os.path.realpath(INTERP) != os.path.realpath(sys.executable) and not os.environ.get("HERMES_CALLSERVER_REEXEC"):
    # The launcher's own interpreter (a venv's python): the same program, started again with it.
    os.environ["HERMES_CALLSERVER_REEXEC"] = "1"
    os.execv(INTERP, [INTERP] + list(sys.orig_argv[1:]))

os.chdir("/")
SERVER_PID = os.getpid()
try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None


def die_with_server():
    """In a call's child: SIGKILL when the server goes (Linux); a server already gone ends the child."""
    if _LIBC is not None and hasattr(_LIBC, "prctl"):
        _LIBC.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != SERVER_PID:
        os._exit(70)


# Started by the host's hub (the bridge's hermes.share: host): the server dies with the hub, and its calls
# with it (they die with the server), so a call whose seat was told it failed cannot land later.
if os.environ.pop("HKB_CALLSERVER_DIE_WITH_PARENT", None) == "1":
    _HUB = int(os.environ.pop("HKB_CALLSERVER_PARENT", "0") or 0)
    if _LIBC is not None and hasattr(_LIBC, "prctl"):
        _LIBC.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if _HUB and os.getppid() != _HUB:
        os._exit(70)

ENTRY_MODULES = ("hermes_cli.main",)
START_ENV = dict(os.environ)
START_ENV.pop("HERMES_CALLSERVER_REEXEC", None)
LAUNCHER = os.path.realpath(LAUNCHER)
sys.path.insert(0, os.path.dirname(LAUNCHER))


def stamp():
    """What tells that the install changed: the launcher's and the CLI package's files' mtimes."""
    times = [os.stat(LAUNCHER).st_mtime_ns]
    # The package's files count from the start, imported or not (found without running it): a stamp
    # taken before the warm-up must equal one taken after it, whatever the files' own mtimes are.
    pkg = sys.modules.get("hermes_cli")
    origin = getattr(pkg, "__file__", None) if pkg else None
    if not origin:
        try:
            spec = importlib.util.find_spec("hermes_cli")
            origin = spec.origin if spec else None
        except (ImportError, ValueError):
            origin = None
    root = os.path.dirname(origin or "")
    if root:
        with os.scandir(root) as it:
            times.extend(e.stat().st_mtime_ns for e in it if e.name.endswith(".py"))
    return max(times)


STAMP = stamp()
OUT = sys.stdout.buffer


def send(obj):
    OUT.write(json.dumps(obj).encode("utf-8") + b"\n")
    OUT.flush()


def run_launcher(argv):
    """The launcher as `__main__` with this argv: its exit code (SystemExit's, 1 for an uncaught error)."""
    sys.argv = [LAUNCHER] + EXTRA + argv
    try:
        runpy.run_path(LAUNCHER, run_name="__main__")
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        sys.stderr.write("%s\n" % (e.code,))
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def run_child(argv, env):
    """In the forked child: the call, as a plain `python3 <launcher> <argv>` would run it."""
    try:
        os.setpgid(0, 0)
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(env)
        # The CLI's entry module decides some calls at import time (`--version` before the import wall):
        # for anything but a `kanban` call it is imported again in the child, as a plain process would.
        if not argv or argv[0] != "kanban":
            for name in ENTRY_MODULES:
                sys.modules.pop(name, None)
        else:
            _kanban_only()
        code = run_launcher(argv)
        try:
            atexit._run_exitfuncs()
        except BaseException:
            pass
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = 1
    os._exit(code & 0xFF)


REEXEC_MARK = "\0reexec "


def learn(argv, env=None):
    """The modules a kanban call imports: a child runs one (output discarded) and names them — or, when
    the launcher execs another program instead of running in this interpreter, that program's path."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        # Every os.exec* goes through execv or execve (os.py): a launcher that replaces its process says so
        # before it goes (the pipe closes on exec).
        for _name in ("execv", "execve"):
            _real = getattr(os, _name)

            def _told(path, *rest, _real=_real):
                os.write(w, (REEXEC_MARK + os.fsdecode(path)).encode("utf-8", "replace"))
                return _real(path, *rest)

            setattr(os, _name, _told)
        try:
            os.environ.update(env or {})
            sys.argv = [LAUNCHER] + EXTRA + argv
            runpy.run_path(LAUNCHER, run_name="__main__")
        except BaseException:
            pass
        try:
            os.write(w, "\n".join(sorted(sys.modules)).encode("utf-8"))
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while True:
        data = os.read(r, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(r)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    if text.startswith(REEXEC_MARK):
        return [], text[len(REEXEC_MARK):]
    return text.split("\n"), None


# Warm: import in this process what a kanban call imports (learned from two harmless calls: the help,
# and a list on a throwaway Hermes home — a call that opens a board's database, without touching the
# real one), so each forked call finds it loaded.
WARM = 0
REEXEC = None
try:
    _scratch = tempfile.mkdtemp(prefix="hermes-callserver-warmup-")
except OSError:
    _scratch = None
_probes = [(["kanban", "--help"], None)]
if _scratch:
    _probes.append((["kanban", "list", "--json"], {"HERMES_HOME": _scratch, "HOME": _scratch}))
try:
    for probe, probe_env in _probes:
        names, REEXEC = learn(probe, probe_env)
        if REEXEC:
            break
        for name in names:
            if name and name not in sys.modules and name != "__main__":
                try:
                    __import__(name)
                    WARM += 1
                except BaseException:
                    pass
finally:
    if _scratch:
        shutil.rmtree(_scratch, ignore_errors=True)

# Message catalogs: argparse looks up its translation on every one of the ~1000 strings a kanban call's
# parser builds, and each lookup probes the locale directories on disk (half a call's time). Where the
# catalog is, is a function of the lookup and the locale variables: remembered here, computed once in
# this process for the server's own locale, so every call with that locale finds it done. (A catalog
# installed while the server runs is seen after its idle restart.)
import gettext  # noqa: E402

_find = gettext.find
_found = {}
_LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# The environment as os.environ keeps it (bytes, the same dict for the process's life: a call's child
# clears and fills it): read there, a lookup does not encode and decode on each of ~1000 strings.
_ENV = getattr(os.environ, "_data", None)
if isinstance(_ENV, dict) and all(isinstance(k, bytes) for k in _ENV):

    def _keys(names):
        return tuple(n.encode() for n in names)

    def _env(keys):
        return tuple(map(_ENV.get, keys))
else:

    def _keys(names):
        return tuple(names)

    def _env(keys):
        return tuple(map(os.environ.get, keys))


_LOCALE_KEYS = _keys(_LOCALE_VARS)


def _remembered_find(domain, localedir=None, languages=None, all=False):
    key = (domain, localedir, tuple(languages) if languages else None, bool(all), _env(_LOCALE_KEYS))
    if key not in _found:
        _found[key] = _find(domain, localedir, languages, all)
    r = _found[key]
    return list(r) if isinstance(r, list) else r


gettext.find = _remembered_find
# Warm for the server's own locale, and for none at all (a call whose environment names no locale).
_saved = {v: os.environ.pop(v) for v in _LOCALE_VARS if v in os.environ}
for _all in (False, True):
    gettext.find("messages", None, None, _all)
os.environ.update(_saved)
for _all in (False, True):
    gettext.find("messages", None, None, _all)

# The terminal's size: argparse asks for it on each of the ~1300 formatters a kanban call's parser makes. A
# call's stdout is the server's pipe, never a terminal, so the answer is a function of COLUMNS, LINES and the
# fallback alone: remembered per call on them (computed by the standard library's own function).
_terminal_size = shutil.get_terminal_size
_sizes = {}
_SIZE_KEYS = _keys(("COLUMNS", "LINES"))


def _remembered_terminal_size(fallback=(80, 24)):
    key = _env(_SIZE_KEYS) + (tuple(fallback),)
    if key not in _sizes:
        _sizes[key] = _terminal_size(fallback)
    return _sizes[key]


shutil.get_terminal_size = _remembered_terminal_size

# A kanban call's parser. Hermes's main() builds the parser of every top-level command (~360 parsers with
# their arguments) and a kanban call parses with one of them: building the others is half of a call's own
# work and a sixth of the pages its fork copies (a forked call: 0.10 → 0.08 CPU-s, process accounting over
# 30 `list` calls on real Hermes 0.20 and 0.21.3). In a kanban call's child, the top level's other
# commands get a stand-in that takes whatever their builders ask of it and builds nothing; the top level
# itself, its list of commands (names, aliases, help lines) and `kanban` with everything below it are
# built as always: a kanban call's parse, help and errors reach nothing else. The top level is the first
# set of subcommands the call fills, named by one word (`hermes`); anything else is built in full.
import argparse  # noqa: E402


class _Unbuilt(object):
    """A parser a kanban call never reaches: every attribute and call answers with the stand-in itself."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return True


_add_parser = argparse._SubParsersAction.add_parser


def _kanban_only():
    top = []

    def add_parser(self, name, **kwargs):
        if not top:
            top.append(self)
        if self is not top[0] or name == "kanban" or " " in self._prog_prefix:
            return _add_parser(self, name, **kwargs)
        real, self._parser_class = self._parser_class, _Unbuilt
        try:
            return _add_parser(self, name, **kwargs)
        finally:
            self._parser_class = real

    argparse._SubParsersAction.add_parser = add_parser

# What is loaded now stays: kept out of the collector's scans, so a forked call does not copy the
# server's pages just to look at them (copy-on-write).
import gc  # noqa: E402

gc.collect()
gc.freeze()


class Call:
    def __init__(self, cid, pid, out_fd, err_fd, cap, since):
        self.id, self.pid, self.cap = cid, pid, cap
        self.since = since  # epoch seconds, taken before the call could run: nothing it did is older
        self.out_fd, self.err_fd = out_fd, err_fd
        self.bufs = {out_fd: bytearray(), err_fd: bytearray()}
        self.open = {out_fd, err_fd}
        self.truncated = False
        self.status = None
        self.exited_at = None
        self.kill_at = None
        self.began = time.monotonic()
        self.worker = None

    def take(self, fd, data):
        b = self.bufs[fd]
        b.extend(data)
        if len(b) > self.cap:
            del b[: len(b) - self.cap]  # the tail is kept, like the bridge's own capture
            self.truncated = True


calls = {}  # id(Call) -> Call (a worker serves many calls: not keyed by pid)
by_id = {}
stale = False
stdin_open = True
pending = b""

# The queue (see the top): slots and how long a call holds one (tests set them through the environment).
try:
    SLOTS = min(256, max(1, int(os.environ.get("HKB_CALLSERVER_SLOTS") or len(os.sched_getaffinity(0)))))
except (AttributeError, ValueError, OSError):
    SLOTS = min(256, max(1, os.cpu_count() or 1))
try:
    HOLD = float(os.environ.get("HKB_CALLSERVER_HOLD_MS") or 500) / 1000.0
except ValueError:
    HOLD = 0.5
HOLD = min(600.0, max(0.0, HOLD)) if HOLD == HOLD else 0.5  # finite (a test holds a slot for minutes), never NaN
URGENT = {"heartbeat"}
waiting = []  # [priority, sequence, request]
seq = 0


def verb_of(argv):
    """The kanban verb of a call's argv (`kanban --board=x claim …`, `kanban --board x claim …` → claim), or None
    for any other shape before it (`--boa x`: argparse takes an abbreviation, and x would be the board): such a
    call is not known to be a read, so it is forked."""
    if not argv or argv[0] != "kanban":
        return None
    rest = iter(argv[1:])
    for a in rest:
        if a == "--board":  # `--board x` (kanban's one option with a value): x is the board, not the verb
            next(rest, None)
        elif a.startswith("--board="):
            continue
        elif a.startswith("-"):
            return None
        else:
            return a
    return None


def enqueue(req):
    global seq
    argv = [str(a) for a in req.get("argv", [])] if isinstance(req.get("argv"), list) else []
    verb = verb_of(argv)
    prio = 0 if verb in URGENT else 1 if verb == "claim" else 2
    seq += 1
    waiting.append([prio, seq, req])


def start_waiting():
    """Starts the waiting calls the free slots allow, most urgent first."""
    if not waiting:
        return
    now = time.monotonic()
    busy = sum(1 for c in calls.values() if c.status is None and now - c.began < HOLD)
    waiting.sort(key=lambda w: (w[0], w[1]))
    while waiting and busy < SLOTS:
        start(waiting.pop(0)[2])
        busy += 1


def next_release():
    """Seconds until a running call frees its slot (the loop's wait while calls are queued)."""
    now = time.monotonic()
    ends = [c.began + HOLD - now for c in calls.values() if c.status is None and now - c.began < HOLD]
    return max(0.005, min(ends)) if ends else 0.2


def fork_child():
    """fork(), the server's buffers flushed first; in the child (0), it dies with the server and the server's
    wake-up pipe is not its own."""
    OUT.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        die_with_server()
        signal.set_wakeup_fd(-1)
    return pid


def start(req):
    global stale
    cid = req.get("id")
    if stale or stamp() != STAMP:
        stale = True
        for w in list(workers):
            if not w.busy:
                retire(w)
        send({"id": cid, "event": "stale"})
        return
    argv = [str(a) for a in req.get("argv", [])] if isinstance(req.get("argv"), list) else []
    env = dict(START_ENV) if req.get("inherit") else {}
    env.update({str(k): str(v) for k, v in (req.get("env") or {}).items()})
    if verb_of(argv) in READS:
        c = start_in_worker(req, argv, env)
        if c is not None:
            calls[id(c)] = c
            by_id[cid] = c
            send({"id": cid, "event": "started", "pid": c.pid, "t": c.since})
            return
    since = int(time.time())
    o_r, o_w = os.pipe()
    e_r, e_w = os.pipe()
    pid = fork_child()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(o_w, 1)
        os.dup2(e_w, 2)
        # Only its own stdio: not the server's pipes, not another call's, not the wake-up pipe.
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        run_child(argv, env)
    os.close(o_w)
    os.close(e_w)
    c = Call(cid, pid, o_r, e_r, int(req.get("cap") or 64 * 1024 * 1024), since)
    calls[id(c)] = c
    by_id[cid] = c
    send({"id": cid, "event": "started", "pid": pid, "t": since})


# Reads in a reused worker. A forked call writes to ~2,500 of the server's pages (reference counts): four
# fifths of a read's CPU is copying them. A read (`show`, `context`, `list`) goes to a worker instead —
# a child forked as a call's is, kept for the next read with the same environment: its pages are its own
# after the first, so a read there costs Hermes's own work alone. A worker serves one call at a time (a
# read that finds them all busy is forked as before); there are at most two workers per slot (a slot frees
# while its call still runs). One that failed a call, was killed, or served WORKER_CALLS reads is not used
# again, and one idle for WORKER_IDLE ends. Writes are always forked (a claim's lock names its process).
READS = {"show", "context", "list"}
try:
    WORKER_CALLS = max(0, int(os.environ.get("HKB_CALLSERVER_WORKER_CALLS") or 200))
except ValueError:
    WORKER_CALLS = 200
if not hasattr(socket, "send_fds"):  # Python before 3.9: every read forked
    WORKER_CALLS = 0
try:  # seconds: an idle worker ends then (its pages are memory a quiet seat does not need)
    WORKER_IDLE = max(0.0, float(os.environ.get("HKB_CALLSERVER_WORKER_IDLE_MS") or 10000) / 1000.0)
except ValueError:
    WORKER_IDLE = 10.0
workers = []  # every worker, each for one environment (its key)


class Worker:
    def __init__(self, key, pid, sock):
        self.key, self.pid, self.sock = key, pid, sock
        self.busy = False
        self.doomed = False
        self.served = 0
        self.idle_since = time.monotonic()


def worker_main(sock, env):
    """In a worker: each read sent on `sock` (its argv, its stdout and stderr), run here in turn, the process
    put back as it was after each: environment, working directory, umask, every signal's handler, the signal
    mask, the interval timer, the streams (flushed, the read's own and the original ones). A read that left
    something it cannot take back — a thread, an exit handler, a process of its own forked from here — ends
    the worker after its answer (its exit handlers run then, as a call's child's would). It ends with 0 only
    where no read is under way (the server closed the socket); otherwise with 70, so a read cut by the
    worker's own failure is never answered as a success."""
    try:
        os.setpgid(0, 0)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        me = os.getpid()
        handlers = {}
        for sig in signal.valid_signals():
            try:
                handlers[sig] = signal.getsignal(sig)
            except (OSError, ValueError):
                pass
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        umask = os.umask(0o022)
        os.umask(umask)
        streams = (sys.stdout, sys.stderr)
        threads, exits = threading.active_count(), atexit._ncallbacks()
        while True:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 2)
            if not msg and not fds:
                os._exit(0)
            if len(fds) != 2:
                break
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            for fd in fds:
                os.close(fd)
            os.environ.clear()
            os.environ.update(env)
            sys.stdout, sys.stderr = streams  # as a call's child has them, whatever the last read made of them
            argparse._SubParsersAction.add_parser = _add_parser
            _kanban_only()  # afresh: it keeps the first top level it fills
            code = run_launcher([str(a) for a in json.loads(msg)["argv"]])
            if os.getpid() != me:
                os._exit(code & 0xFF if isinstance(code, int) else 1)  # a process the read forked: never a worker
            keep = threading.active_count() == threads and atexit._ncallbacks() == exits
            if not keep:
                try:
                    atexit._run_exitfuncs()
                except BaseException:
                    pass
            for f in {id(x): x for x in (sys.stdout, sys.stderr) + streams}.values():
                f.flush()
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.chdir("/")
            os.umask(umask)
            signal.setitimer(signal.ITIMER_REAL, 0)
            for sig, h in handlers.items():
                try:
                    signal.signal(sig, h)
                except (OSError, ValueError, TypeError):
                    pass
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            sock.sendall(json.dumps({"code": code if isinstance(code, int) else 1, "keep": keep}).encode("ascii"))
            if not keep:
                os._exit(0)
    except BaseException:
        pass
    os._exit(70)


def worker_for(env_key, env):
    """An idle worker for this environment (started if there is room), or None: the read is forked."""
    if WORKER_CALLS == 0 or REEXEC:
        return None
    for w in workers:
        if w.key == env_key and not w.busy:
            return w
    if len(workers) >= 2 * SLOTS:
        # Room from another environment's worker that has been idle a while; else this read is forked.
        idle = [x for x in workers if x.key != env_key and not x.busy and time.monotonic() - x.idle_since > 2.0]
        if not idle:
            return None
        retire(min(idle, key=lambda x: x.idle_since))
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = fork_child()
    if pid == 0:
        a.close()
        keep = b.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        worker_main(b, env)
    b.close()
    w = Worker(env_key, pid, a)
    workers.append(w)
    return w


def retire(w, kill_it=True):
    """The worker is not used again (and, idle, ends now)."""
    if w in workers:
        workers.remove(w)
    w.sock.close()
    if kill_it:
        # Its group (what its read started) and itself: a worker not yet in a group of its own ends too.
        for end in (os.killpg, os.kill):
            try:
                end(w.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(w.pid, 0)
        except OSError:
            pass


def start_in_worker(req, argv, env):
    """The read started in a worker: the Call, or None (no worker for it: forked as before)."""
    key = (bool(req.get("inherit")), tuple(sorted(env.items())))
    message = json.dumps({"argv": argv}).encode("utf-8")
    if len(message) > 60000:
        return None  # more than the worker reads in one message: forked
    w = worker_for(key, env)
    if w is None:
        return None
    since = int(time.time())
    o_r, o_w = os.pipe()
    e_r, e_w = os.pipe()
    try:
        socket.send_fds(w.sock, [message], [o_w, e_w])
    except OSError:
        retire(w)
        for fd in (o_r, o_w, e_r, e_w):
            os.close(fd)
        return None
    os.close(o_w)
    os.close(e_w)
    w.busy = True
    c = Call(req.get("id"), w.pid, o_r, e_r, int(req.get("cap") or 64 * 1024 * 1024), since)
    c.worker = w
    return c


def worker_done(c):
    """A worker's answer for its call (its exit code), or its end: the call's status; the worker kept or not."""
    w = c.worker
    try:
        msg = w.sock.recv(4096)
    except OSError:
        msg = b""
    if not msg:
        return  # it ended: its wait status comes from waitpid
    try:
        said = json.loads(msg)
        code, keep = int(said["code"]) & 0xFF, said.get("keep") is True
    except (ValueError, KeyError, TypeError):
        code, keep = 1, False
    c.status = code << 8
    c.exited_at = time.monotonic()
    w.served += 1
    if code != 0 or not keep or w.doomed or w.served >= WORKER_CALLS or stale:
        retire(w)


def kill(req):
    for w in waiting:
        if w[2].get("id") == req.get("id"):
            # Never started: answered as a call stopped before it ran.
            waiting.remove(w)
            send({"id": w[2].get("id"), "event": "done", "code": None, "signal": "SIGTERM", "stdout": "", "stderr": "", "truncated": False})
            return
    c = by_id.get(req.get("id"))
    if c and c.status is None:
        if c.worker is not None:
            c.worker.doomed = True  # never handed another read, even if its answer was already on its way
            if c.worker in workers:
                workers.remove(c.worker)
        try:
            os.killpg(c.pid, signal.SIGTERM)
        except OSError:
            pass
        c.kill_at = time.monotonic() + 2.0


def finish(c):
    code, sig = None, None
    if os.WIFEXITED(c.status):
        code = os.WEXITSTATUS(c.status)
    elif os.WIFSIGNALED(c.status):
        sig = signal.Signals(os.WTERMSIG(c.status)).name
    send({
        "id": c.id,
        "event": "done",
        "code": code,
        "signal": sig,
        "stdout": base64.b64encode(bytes(c.bufs[c.out_fd])).decode("ascii"),
        "stderr": base64.b64encode(bytes(c.bufs[c.err_fd])).decode("ascii"),
        "truncated": c.truncated,
    })
    del calls[id(c)]
    by_id.pop(c.id, None)
    if c.worker is not None:
        # Free for the next read once this one is answered (its pipes drained): a call per worker at a time.
        c.worker.busy = False
        c.worker.idle_since = time.monotonic()


signal.signal(signal.SIGPIPE, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
# A child's exit wakes the loop at once (its pipes close a moment before it can be reaped: without
# this, a call could wait for the next select timeout).
WAKE_R, WAKE_W = os.pipe()
for _fd in (WAKE_R, WAKE_W):
    os.set_blocking(_fd, False)
signal.set_wakeup_fd(WAKE_W)
signal.signal(signal.SIGCHLD, lambda *_: None)
send({"event": "ready", "host": socket.gethostname(), "pid": os.getpid(), "python": sys.version.split()[0], "warm": WARM, "reexec": REEXEC})

while stdin_open or calls or waiting:
    fds = [WAKE_R] + ([0] if stdin_open else [])
    for c in calls.values():
        fds.extend(c.open)
        if c.worker is not None and c.status is None:
            fds.append(c.worker.sock.fileno())
    ready, _, _ = select.select(fds, [], [], next_release() if waiting else 0.2)
    for fd in ready:
        if fd == WAKE_R:
            try:
                while os.read(WAKE_R, 512):
                    pass
            except BlockingIOError:
                pass
            continue
        if fd == 0:
            data = os.read(0, 65536)
            if not data:
                stdin_open = False
                continue
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if not line.strip():
                    continue
                try:
                    req = json.loads(line)
                except ValueError:
                    send({"event": "error", "message": "not a JSON request"})
                    continue
                if req.get("op") == "kill":
                    kill(req)
                else:
                    enqueue(req)
            continue
        for c in list(calls.values()):
            if c.worker is not None and c.status is None and fd == c.worker.sock.fileno():
                worker_done(c)
            elif fd in c.open:
                data = os.read(fd, 65536)
                if data:
                    c.take(fd, data)
                else:
                    c.open.discard(fd)
                    os.close(fd)
    now = time.monotonic()
    for c in list(calls.values()):
        if c.kill_at is not None and now > c.kill_at and c.status is None:
            try:
                os.killpg(c.pid, signal.SIGKILL)
            except OSError:
                pass
            c.kill_at = None
        if c.status is None:
            pid, status = os.waitpid(c.pid, os.WNOHANG)
            if pid:
                c.status = status
                c.exited_at = now
                if c.worker is not None:
                    retire(c.worker, kill_it=False)  # it ended during its call (killed, crashed)
        # A leftover of the call that still holds its pipes is not waited for (bounded, like the bridge's own drain).
        if c.status is not None and c.open and now - c.exited_at > 1.0:
            for fd in list(c.open):
                c.open.discard(fd)
                os.close(fd)
        if c.status is not None and not c.open:
            finish(c)
    for w in [w for w in workers if not w.busy and now - w.idle_since > WORKER_IDLE]:
        retire(w)
    start_waiting()
    if stale and not calls and not waiting:
        break
