// The egress proxy over a real unix socket, for its contract tests: an upstream stand-in, a proxy with an
// allow-list, a CONNECT and a plain request through it, and a resolver standing in for DNS (the boundary).
import { mkdtempSync } from "node:fs";
import { type Server, createServer, request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Resolver } from "../../src/egress/address.js";
import { AllowList, parseHostRule } from "../../src/egress/allow.js";
import { EgressProxy } from "../../src/egress/proxy.js";

export type Closers = (() => Promise<unknown>)[];

export async function upstream(
  closers: Closers,
  answer: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = (_q, res) => res.end("upstream says hi"),
): Promise<{ port: number; seen: { url: string; headers: Record<string, unknown> }[] }> {
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  const s: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    answer(req, res);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  closers.push(() => new Promise((r) => s.close(() => r(null))));
  return { port: (s.address() as { port: number }).port, seen };
}

export type ProxyOptions = Omit<ConstructorParameters<typeof EgressProxy>[0], "allow" | "routes"> & {
  deny?: string[];
  routes?: ConstructorParameters<typeof EgressProxy>[0]["routes"];
  allowList?: AllowList;
};

export async function proxy(closers: Closers, allow: string[], o: ProxyOptions = {}) {
  const { deny, routes, allowList, ...rest } = o;
  const p = new EgressProxy({
    allow:
      allowList ??
      new AllowList(
        allow.map((a, i) => parseHostRule(a, `allow.${i}`)),
        (deny ?? []).map((a, i) => parseHostRule(a, `deny.${i}`)),
      ),
    routes: routes ?? [],
    ...rest,
  });
  const socket = join(mkdtempSync(join(tmpdir(), "hkb-egress-")), "s");
  await p.listen(socket);
  closers.push(() => p.close());
  return { p, socket };
}

/** A CONNECT through the proxy: its status line (and the rest of its answer's head and body as far as read). */
export function tunnel(socket: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket, () => c.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let got = "";
    c.on("data", (d) => {
      got += d.toString();
      if (got.includes("\r\n\r\n")) {
        c.destroy();
        resolve(got);
      }
    });
    c.on("error", reject);
  });
}

/** A plain request through the proxy (absolute form, or a path for the API route). */
export function get(
  socket: string,
  path: string,
  headers: Record<string, string> = {},
  o: { method?: string; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ socketPath: socket, path, headers, method: o.method ?? "GET" }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      // an answer cut half-way ends here too (with what came)
      res.on("error", () => undefined);
      res.on("close", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on("error", reject);
    r.end(o.body);
  });
}

export const fakeResolver =
  (map: Record<string, string[]>, asked: string[] = []): Resolver =>
  async (host) => {
    asked.push(host);
    const a = map[host];
    if (!a) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
