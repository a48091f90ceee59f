// One run's egress proxy (agent.isolation.network: proxy): the only way out of the jail's own network
// namespace. It listens on a unix socket the jail binds in (a relay inside turns it into 127.0.0.1:3128,
// relay.ts) and takes
//   CONNECT host:port            — the tunnel every HTTPS client asks for through HTTPS_PROXY;
//   GET http://host:port/path     — a plain-HTTP request in absolute form (HTTP_PROXY);
//   <any> /hkb-api/<name>/<path>  — the agent CLI's own API, pointed here by its base URL: forwarded to the
//                                   API the seat is configured for, the seat's key put in place of the
//                                   placeholder the jail holds (the key itself never enters the jail).
// Every destination is checked on what the client asked for (never a Host header) against the allow-list
// (allow.ts), then resolved and its every address checked (address.ts) — the connection goes to the
// address that was checked; a host that is not allowed is never resolved. A refusal answers 403
// `blocked-by-allowlist` naming the host and why, and is counted per host:port (with the allowHosts entry
// that lets it through where one may be suggested, allow.ts); what was allowed is counted in bytes per host.
// Every name it resolves and every address it connects to is told (`onTrace`: the proxy's own log).
import { type IncomingMessage, type ServerResponse, type Server, createServer, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { type Socket, connect, isIP } from "node:net";
import type { Duplex } from "node:stream";
import { type AllowList, urlRule } from "./allow.js";
import { type ApiRoute, KeyMask, apiHeaders, apiTailProblem, maskedHeaders } from "./api-route.js";
import { type Resolver, pick, resolveHost, systemResolver } from "./address.js";
import { type BookHooks, type EgressCounts, EgressBook } from "./book.js";

export type { ApiRoute } from "./api-route.js";
export type { EgressCounts, Refused } from "./book.js";

/** Connections one run's proxy holds at once (each a tunnel's two descriptors): a run cannot drain the bridge's. */
export const MAX_CONNECTIONS = 256;
/** A connection that carries nothing this long is closed. */
const IDLE_MS = 10 * 60_000;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/i;

/** What the proxy did toward the outside: a name resolved, a connection opened (an address, or the API's upstream). */
export type EgressTrace = { what: "resolve"; host: string } | { what: "connect"; host: string; port: number; address: string };

export const API_PREFIX = "/hkb-api/";

export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();
  private readonly book: EgressBook;

  constructor(
    private readonly o: {
      allow: AllowList;
      routes: readonly ApiRoute[];
      resolver?: Resolver;
      /** Every name resolved and every connection opened toward the outside (the proxy's own log). */
      onTrace?: (t: EgressTrace) => void;
      /** Every time an allowed host gave no answer (did not resolve, refused or dropped the connection): the run's unreachable watch. */
      onUnanswered?: (host: string, port: number, why: string) => void;
    } & BookHooks,
  ) {
    this.book = new EgressBook(o);
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.maxConnections = MAX_CONNECTIONS;
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.setTimeout(IDLE_MS, () => s.destroy());
      s.once("close", () => this.sockets.delete(s));
    });
  }

  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(path, () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  counts(): EgressCounts {
    return this.book.counts();
  }

  /** The address to connect to for host:port, or the answer instead (403: refused; 502: an allowed name that does not resolve). */
  private async destination(host: string, port: number): Promise<{ address: string } | { refused: string; status?: number }> {
    // No host at all (a name too long, bytes no name has): answered, never counted or logged.
    if (isIP(host) === 0 && !HOSTNAME.test(host)) return { refused: "not a host name", status: 400 };
    const d = this.o.allow.decide(host, port);
    if (!d.allowed) return { refused: this.book.refused(host, port, d.why, d.refusal) };
    let resolved: Awaited<ReturnType<typeof resolveHost>>;
    try {
      if (isIP(host.replace(/^\[|\]$/g, "")) === 0) this.o.onTrace?.({ what: "resolve", host });
      resolved = await resolveHost(host, this.o.resolver ?? systemResolver);
    } catch (err) {
      const why = `cannot resolve ${host} (${(err as NodeJS.ErrnoException).code ?? "error"})`;
      this.unanswered(host, port, why);
      return { refused: why, status: 502 };
    }
    const to = pick(resolved, d.explicit);
    if (!to)
      return { refused: this.book.refused(host, port, `resolves to ${resolved.map((r) => `${r.address} (${r.range})`).join(", ")}: not a public address`) };
    this.o.onTrace?.({ what: "connect", host, port, address: to.address });
    return { address: to.address };
  }

  private async onConnect(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.sockets.add(socket);
    socket.on("error", () => socket.destroy());
    const target = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? "");
    if (!target) return void socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nCONNECT needs host:port\n");
    const host = (target[1] ?? "").toLowerCase();
    const port = Number(target[2]);
    const dest = await this.destination(host, port);
    if ("refused" in dest) {
      const head = dest.status === 502 ? "502 Bad Gateway" : dest.status === 400 ? "400 Bad Request" : "403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist";
      return void socket.end(`HTTP/1.1 ${head}\r\nConnection: close\r\n\r\n${dest.refused}\n`);
    }
    const up = connect({ host: dest.address, port });
    this.sockets.add(up);
    let connected = false;
    up.once("connect", () => {
      connected = true;
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) up.write(head);
      up.on("data", (c: Buffer) => this.book.carried(host, c.length));
      socket.on("data", (c: Buffer) => this.book.carried(host, c.length));
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on("error", (err: NodeJS.ErrnoException) => {
      if (connected) return void socket.destroy();
      const why = `could not reach ${host}:${port} (${err.code ?? err.message})`;
      this.unanswered(host, port, why);
      socket.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${why}\n`);
    });
    up.on("close", () => socket.destroy());
    socket.on("close", () => up.destroy());
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? "/";
    // The agent CLI's API: origin form (a client that did not proxy the relay's address) or absolute form.
    const path = raw.startsWith("/") ? raw : safePath(raw);
    if (path?.startsWith(API_PREFIX)) return this.toApi(path, req, res);
    if (raw.startsWith("/")) return end(res, 400, "an absolute http:// URL or CONNECT host:port, please (this is a proxy)\n");
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return end(res, 400, "not a URL\n");
    }
    if (url.protocol !== "http:") return end(res, 400, "plain http:// only; HTTPS goes through CONNECT\n");
    const port = url.port ? Number(url.port) : 80;
    const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const dest = await this.destination(host, port);
    if ("refused" in dest) return end(res, dest.status ?? 403, `${dest.refused}\n`, dest.status ? {} : { "x-proxy-error": "blocked-by-allowlist" });
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    this.forward(httpRequest({ host: dest.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers }), { host, port }, req, res);
  }

  private toApi(path: string, req: IncomingMessage, res: ServerResponse): void {
    const rest = path.slice(API_PREFIX.length);
    const slash = rest.indexOf("/");
    const name = slash === -1 ? rest : rest.slice(0, slash);
    const route = this.o.routes.find((r) => r.name === name);
    if (!route) {
      end(res, 404, `no API named ${name} here\n`);
      return;
    }
    const up = new URL(route.upstream);
    const rule = urlRule(route.upstream, "the agent kind's API");
    const tail = slash === -1 ? "" : rest.slice(slash);
    const bad = apiTailProblem(tail);
    if (bad) {
      end(res, 400, `refused: the path after ${API_PREFIX}${name} holds ${bad}\n`);
      return;
    }
    const h = apiHeaders({ ...req.headers, host: up.host }, route.secrets);
    if ("refused" in h) {
      end(res, 400, `${h.refused}\n`);
      return;
    }
    // The API's upstream is the seat's own (config): Node resolves its name (a name, not an address: told as such).
    if (isIP(up.hostname.replace(/^\[|\]$/g, "")) === 0) this.o.onTrace?.({ what: "resolve", host: up.hostname });
    this.o.onTrace?.({ what: "connect", host: up.hostname, port: rule.port ?? 443, address: up.hostname });
    const target = { host: up.hostname, port: rule.port, method: req.method, path: `${up.pathname.replace(/\/$/, "")}${tail}`, headers: h.headers };
    const upReq = up.protocol === "https:" ? httpsRequest({ ...target, servername: up.hostname }) : httpRequest(target);
    this.forward(upReq, { host: up.hostname, port: rule.port ?? (up.protocol === "https:" ? 443 : 80) }, req, res, route.secrets);
  }

  private unanswered(host: string, port: number, why: string): void {
    this.book.failed(host, port, why);
    this.o.onUnanswered?.(host, port, why);
  }

  private forward(
    up: ReturnType<typeof httpRequest>,
    to: { host: string; port: number },
    req: IncomingMessage,
    res: ServerResponse,
    secrets?: ReadonlyMap<string, string>,
  ): void {
    const { host } = to;
    // The seat's key on the books: every request of the API route, its bytes and the tokens its answer reports.
    const api = secrets ? this.book.api : null;
    api?.request();
    up.on("response", (r) => {
      r.on("data", (c: Buffer) => this.book.carried(host, c.length));
      // An answer the upstream cuts is cut for the client too (never left open).
      r.on("close", () => {
        if (!r.complete) res.destroy();
      });
      if (!secrets || !api) {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        return;
      }
      // The API's answer never carries the real key back into the jail.
      res.writeHead(r.statusCode ?? 502, maskedHeaders(r.headers, secrets));
      const read = api.answer({ status: r.statusCode ?? 0, method: req.method ?? "GET", contentType: String(r.headers["content-type"] ?? "") });
      r.pipe(read).pipe(new KeyMask(secrets)).pipe(res);
      // An answer the client hangs up on, or the API cuts, counts what it reported so far; the request upstream ends with it.
      res.on("close", () => {
        read.settle();
        if (!r.complete) up.destroy();
      });
    });
    up.on("error", (err: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      const why = `could not reach ${host}:${to.port} (${err.code ?? err.message})`;
      this.unanswered(host, to.port, why);
      end(res, 502, `${why}\n`);
    });
    req.on("data", (c: Buffer) => {
      this.book.carried(host, c.length);
      api?.sent(c.length);
    });
    req.pipe(up);
  }
}

/**
 * The path of an absolute URL to the relay itself (the API, asked through the proxy), else null: as the
 * client sent it — URL() would resolve the dot segments the API route must see to refuse.
 */
function safePath(raw: string): string | null {
  try {
    const u = new URL(raw);
    if (u.hostname !== "127.0.0.1" && u.hostname !== "localhost") return null;
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/is.exec(raw);
    return m ? m[1] || "/" : null;
  } catch {
    return null;
  }
}

function end(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain", connection: "close", ...headers });
  res.end(body);
}
