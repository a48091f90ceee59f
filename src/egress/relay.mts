// The relay inside a jail whose network is the bridge's proxy (agent.isolation.network: proxy): the jail
// has a network namespace of its own with only loopback, and one unix socket of the bridge bound in. The
// relay listens on 127.0.0.1:<port> in the jail (where HTTPS_PROXY and the CLI's base URL point) and
// carries every connection to that socket, byte for byte; then it runs the agent as its child, sharing its
// stdio and its process group, ignores the polite stop itself (the agent gets it and saves its session),
// and ends as the agent ends. `--connect host:port` is a one-shot CONNECT client on stdin/stdout (git's
// ssh ProxyCommand). It is a file of its own, using only Node's own modules: the jail shows it and Node.
//   node relay.mjs <port> <socket> -- <program> [args…]
//   node relay.mjs --connect <host:port> <socket>
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";

function relay(port: number, socket: string, argv: string[]): void {
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
  server.listen(port, "127.0.0.1", () => {
    const [program, ...args] = argv;
    if (!program) process.exit(125);
    for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) process.on(s, () => undefined);
    const child = spawn(program, args, { stdio: "inherit" });
    child.on("error", (err) => {
      process.stderr.write(`hkb-relay: ${program} could not be started: ${err.message}\n`);
      process.exit(127);
    });
    child.on("exit", (code, signal) => {
      server.close();
      if (signal) {
        for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) process.removeAllListeners(s);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  });
}

function connectOnce(target: string, socket: string): void {
  const up = connect(socket, () => up.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
  let head = Buffer.alloc(0);
  const onHead = (c: Buffer) => {
    head = Buffer.concat([head, c]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) return;
    up.off("data", onHead);
    const status = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
    if (!/^HTTP\/1\.[01] 200/.test(status)) {
      process.stderr.write(
        `hkb-relay: the proxy refused ${target}: ${
          head
            .subarray(end + 4)
            .toString("utf8")
            .trim() || status
        }\n`,
      );
      process.exit(1);
    }
    const rest = head.subarray(end + 4);
    if (rest.length) process.stdout.write(rest);
    up.pipe(process.stdout);
    process.stdin.pipe(up);
  };
  up.on("data", onHead);
  up.on("error", (err) => {
    process.stderr.write(`hkb-relay: ${err.message}\n`);
    process.exit(1);
  });
  up.on("close", () => process.exit(0));
}

const args = process.argv.slice(2);
if (args[0] === "--connect") connectOnce(args[1] ?? "", args[2] ?? "");
else {
  const sep = args.indexOf("--");
  relay(Number(args[0]), args[1] ?? "", sep === -1 ? [] : args.slice(sep + 1));
}
