// The first process of every bubblewrap jail (jail.ts), pid 2 under bubblewrap's init: it runs the agent's
// command as its child, sharing its stdio and its process group, ignores the polite stop itself (the agent
// gets it and saves its session), and ends as the agent ends; the jail's pid namespace ends with it.
// `--lifeline <fd>`: the bridge holds the other end of that socket and nothing else does; it writes one byte
// there as it starts the jail, and the relay starts its child only once it has read it. When the relay reads
// end of file there (the bridge is gone, even SIGKILLed while the jail was still being set up, before
// bubblewrap armed --die-with-parent), it kills everything of the jail and exits, and the jail ends with it.
// `--stream <fd>`: the child's stdout is that descriptor instead of the relay's own, which the relay then
// closes (the CLI's stream, jail.ts: no process of the jail but the CLI holds it).
// With the network of the bridge's proxy (agent.isolation.network: proxy) the jail has a network namespace of
// its own with only loopback, and one unix socket of the bridge bound in: the relay listens on
// 127.0.0.1:<port> in the jail (where HTTPS_PROXY and the CLI's base URL point) and carries every connection
// to that socket, byte for byte, before it starts the child. `--forward host:port` (repeated): a host
// loopback service the seat allows by its exact address also listens at that address in the jail, each
// connection a CONNECT through the proxy (clients go direct to loopback: NO_PROXY). `--no-network`: none of
// that (network: host or none). `--connect host:port` is a one-shot CONNECT client on stdin/stdout (git's
// ssh ProxyCommand). It is a file of its own, using only Node's own modules; relay.ts is how the jail starts it
// (its argv and environment), the run's proxy it carries to is egress/proxy.ts.
//   node relay.mjs <port> <socket> [--forward <host:port>]… [--stream <fd>] [--lifeline <fd>] -- <program> [args…]
//   node relay.mjs --no-network [--stream <fd>] [--lifeline <fd>] -- <program> [args…]
//   node relay.mjs --connect <host:port> <socket>
import { spawn } from "node:child_process";
import { closeSync, readFileSync } from "node:fs";
import { Socket, connect, createServer } from "node:net";

// No debugger on SIGUSR1: any process of the jail (one uid) could otherwise open it and run code here
// (jail/quiet-debug.mts says why; this file imports nothing of the bridge's).
process.on("SIGUSR1", () => undefined);

/** A CONNECT through the proxy's socket; `ready` gets the tunnel (anything the proxy sent past its head first), or null. */
function tunnel(target: string, socket: string, ready: (up: Socket | null, rest: Buffer, refusal: string) => void): Socket {
  const up = connect(socket, () => up.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
  let head = Buffer.alloc(0);
  const onHead = (c: Buffer) => {
    head = Buffer.concat([head, c]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) return;
    up.off("data", onHead);
    const status = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
    const rest = head.subarray(end + 4);
    if (/^HTTP\/1\.[01] 200/.test(status)) ready(up, rest, "");
    else ready(null, rest, rest.toString("utf8").trim() || status);
  };
  up.on("data", onHead);
  return up;
}

/** A listener at an allowed host loopback address in the jail: each connection tunnelled to it through the proxy. */
function forward(target: string, socket: string): void {
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost):(\d{1,5})$/.exec(target);
  if (!m) return;
  const at = m[1] === "localhost" ? "127.0.0.1" : (m[1] ?? "");
  const server = createServer((c) => {
    c.pause();
    c.on("error", () => c.destroy());
    const up = tunnel(target, socket, (t, rest) => {
      if (!t) return void c.destroy();
      if (rest.length) c.write(rest);
      c.pipe(t);
      t.pipe(c);
      c.resume();
    });
    up.on("error", () => c.destroy());
    up.on("close", () => c.destroy());
    c.on("close", () => up.destroy());
  });
  server.on("error", (err) => process.stderr.write(`hkb-relay: cannot listen on ${target} for the allowed host service: ${err.message}\n`));
  server.listen(Number(m[2]), at);
  server.unref();
}

/** Where the jail keeps the operator's NODE_OPTIONS for the relay's child (jail.ts): the relay's own Node runs without them. */
const CHILD_NODE_OPTIONS = "HKB_RELAY_CHILD_NODE_OPTIONS";

interface Start {
  argv: string[];
  stream: number | undefined;
  lifeline: number | undefined;
}

/** Whether this process runs in a pid namespace of its own whose init is bubblewrap (a jail's: kill(-1) reaches only it). */
function inJailPidNamespace(): boolean {
  try {
    // (The relay is started only by the jail, with a pid namespace and a /proc of its own: there pid 1 is bubblewrap.)
    return readFileSync("/proc/1/comm", "utf8") === "bwrap\n";
  } catch {
    return false;
  }
}

/** Listens for the jail's traffic to the proxy, then starts the child. */
function relay(port: number, socket: string, forwards: string[], start: Start): void {
  for (const f of forwards) forward(f, socket);
  const server = createServer((c) => {
    const up = connect(socket);
    c.pipe(up);
    up.pipe(c);
    const drop = () => {
      c.destroy();
      up.destroy();
    };
    c.on("error", drop);
    up.on("error", drop);
    c.on("close", drop);
    up.on("close", drop);
  });
  server.on("error", (err) => {
    process.stderr.write(`hkb-relay: cannot listen on 127.0.0.1:${port}: ${err.message}\n`);
    process.exit(125);
  });
  server.listen(port, "127.0.0.1", () => run(start, () => server.close()));
}

/** Starts the child (its stdout the stream, when given) and ends as it ends, or as the bridge does. */
function run({ argv, stream, lifeline }: Start, closing: () => void = () => undefined): void {
  const [program, ...args] = argv;
  if (!program) process.exit(125);
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) process.on(s, () => undefined);
  let child: ReturnType<typeof spawn> | null = null;
  // Taken before the child starts (a descriptor Node takes is not passed on): the child never holds it.
  let bridge: Socket | null = null;
  try {
    bridge = lifeline === undefined ? null : new Socket({ fd: lifeline, readable: true, writable: false });
  } catch (err) {
    process.stderr.write(`hkb-relay: --lifeline ${lifeline} is no socket of the bridge's: ${(err as Error).message}\n`);
    process.exit(125);
  }
  let started = false;
  const gone = () => {
    process.stderr.write("hkb-relay: the bridge is gone; the jail ends\n");
    // Everything of the jail, not only the child (what it started in a session of its own too): in the jail's
    // own pid namespace (bubblewrap's init is 1, with its own /proc) that is every process but init and the relay.
    if (inJailPidNamespace()) process.kill(-1, "SIGKILL");
    else child?.kill("SIGKILL");
    process.exit(137);
  };
  bridge?.on("end", gone);
  bridge?.on("error", gone);
  // The child starts once the bridge's first byte is read (it writes one as it starts the jail), and only if the
  // lifeline has not ended with it: a bridge killed while the jail was being set up is seen before anything of the run starts.
  const start = () => {
    if (started) return;
    started = true;
    const env = { ...process.env };
    // The operator's NODE_OPTIONS are the child's, not the relay's (jail.ts keeps them aside).
    if (env[CHILD_NODE_OPTIONS] !== undefined) env.NODE_OPTIONS = env[CHILD_NODE_OPTIONS];
    delete env[CHILD_NODE_OPTIONS];
    const c = spawn(program, args, { env, stdio: stream === undefined ? "inherit" : ["inherit", stream, "inherit"] });
    child = c;
    // The child has it as its stdout; the relay keeps none.
    if (stream !== undefined)
      try {
        closeSync(stream);
      } catch {
        // not open here
      }
    c.on("error", (err) => {
      process.stderr.write(`hkb-relay: ${program} could not be started: ${err.message}\n`);
      process.exit(127);
    });
    c.on("exit", (code, signal) => {
      closing();
      bridge?.destroy();
      if (signal) {
        for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) process.removeAllListeners(s);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  };
  if (bridge) bridge.on("data", () => setImmediate(start));
  else start();
}

function connectOnce(target: string, socket: string): void {
  const up = tunnel(target, socket, (t, rest, refusal) => {
    if (!t) {
      process.stderr.write(`hkb-relay: the proxy refused ${target}: ${refusal}\n`);
      process.exit(1);
    }
    if (rest.length) process.stdout.write(rest);
    t.pipe(process.stdout);
    process.stdin.pipe(t);
  });
  up.on("error", (err) => {
    process.stderr.write(`hkb-relay: ${err.message}\n`);
    process.exit(1);
  });
  up.on("close", () => process.exit(0));
}

const args = process.argv.slice(2);
if (args[0] === "--connect") connectOnce(args[1] ?? "", args[2] ?? "");
else {
  const bare = args[0] === "--no-network";
  const sep = args.indexOf("--");
  const opts = args.slice(bare ? 1 : 2, sep === -1 ? undefined : sep);
  const valuesOf = (flag: string) => opts.flatMap((a, i) => (opts[i - 1] === flag ? [a] : []));
  const fd = (flag: string) => {
    const [v, ...more] = valuesOf(flag);
    if (v === undefined) return undefined;
    if (more.length || !/^\d{1,4}$/.test(v) || Number(v) < 3) {
      process.stderr.write(`hkb-relay: ${flag} takes one descriptor above 2, not ${[v, ...more].join(", ")}\n`);
      process.exit(125);
    }
    return Number(v);
  };
  const start = { argv: sep === -1 ? [] : args.slice(sep + 1), stream: fd("--stream"), lifeline: fd("--lifeline") };
  if (bare) run(start);
  else relay(Number(args[0]), args[1] ?? "", valuesOf("--forward"), start);
}
