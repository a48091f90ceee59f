// The observability server: / (the fleet page), /healthz, /metrics, /status. Every answer is built
// first and written once (an error in any of them is a 500, never a second writeHead, never a crash).
// Who may ask: a request whose Host is not one of this seat's names is refused (DNS rebinding); when a
// token is set (required for a bind that is not loopback) every path but /healthz needs it — as
// `Authorization: Bearer <token>`, or as the password of Basic auth (a browser's prompt).
import { timingSafeEqual } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { isLoopbackHost } from "../config/http-token.js";
import { FLEET_CSP } from "./fleet-html.js";
import type { Metrics } from "./metrics.js";

export interface ObservedDaemon {
  healthy(): boolean;
  status(): unknown;
}

export interface HttpOptions {
  /** The fleet page served at `/` (HTML); the signal aborts when the client leaves. */
  page?: ((signal?: AbortSignal) => Promise<string>) | undefined;
  /** Host names (without port) besides loopback, this machine's name and the bind address (http.allowedHosts). */
  allowedHosts?: readonly string[] | undefined;
  /** Required on every path but /healthz when set (http.tokenEnv / http.tokenFile). */
  token?: string | undefined;
  /** An answer failed (logged by the caller). */
  onError?: ((path: string, err: unknown) => void) | undefined;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The host name of a Host header (without the port; IPv6 literals keep their brackets). */
export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d+)?$/i.exec(header.trim());
  return m?.[1]?.toLowerCase() ?? null;
}

const text = (status: number, body: string, extra: Record<string, string> = {}): Answer => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8", ...extra },
  body,
});

function sameSecret(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a request carries (Bearer, or the password of Basic auth), or null. */
function tokenOf(req: IncomingMessage): string | null {
  const h = req.headers.authorization ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(h);
  if (bearer?.[1]) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h);
  if (!basic?.[1]) return null;
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}

export class HttpServer {
  private server: Server | undefined;
  private allowed = new Set<string>();

  constructor(
    private readonly daemon: ObservedDaemon,
    private readonly metrics: Metrics,
    private readonly o: HttpOptions = {},
  ) {}

  async listen(port: number, host = "127.0.0.1"): Promise<number> {
    const bind = host.toLowerCase();
    const wildcard = bind === "0.0.0.0" || bind === "::" || bind === "";
    this.allowed = new Set([hostname().toLowerCase(), ...(this.o.allowedHosts ?? []).map((h) => h.toLowerCase()), ...(wildcard ? [] : [bind, `[${bind}]`])]);
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const ac = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) ac.abort(new Error("client left"));
    };
    res.once("close", onClose);
    let answer: Answer;
    try {
      answer = await this.answer(req, path, ac.signal);
    } catch (err) {
      this.o.onError?.(path, err);
      answer = text(500, "internal error\n");
    }
    res.off("close", onClose);
    if (ac.signal.aborted || res.destroyed) return;
    try {
      res.writeHead(answer.status, { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", ...answer.headers }).end(answer.body);
    } catch (err) {
      this.o.onError?.(path, err);
      res.destroy();
    }
  }

  private async answer(req: IncomingMessage, path: string, signal: AbortSignal): Promise<Answer> {
    const host = hostOf(req.headers.host);
    if (!host || !(isLoopbackHost(host) || this.allowed.has(host)))
      return text(421, `this seat does not answer for host ${JSON.stringify(req.headers.host ?? "")} (http.allowedHosts)\n`);
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed\n", { allow: "GET, HEAD" });
    if (path === "/healthz") {
      const ok = this.daemon.healthy();
      return text(ok ? 200 : 503, ok ? "ok\n" : "unhealthy\n");
    }
    if (this.o.token !== undefined) {
      const given = tokenOf(req);
      if (given === null || !sameSecret(given, this.o.token))
        return text(401, "a token is required (Authorization: Bearer <http token>)\n", { "www-authenticate": 'Basic realm="hermes-bridge", charset="UTF-8"' });
    }
    if (path === "/status") return { status: 200, headers: { "content-type": "application/json" }, body: `${JSON.stringify(this.daemon.status(), null, 2)}\n` };
    if (path === "/metrics") {
      this.daemon.status(); // refreshes the gauges
      return { status: 200, headers: { "content-type": this.metrics.registry.contentType }, body: await this.metrics.registry.metrics() };
    }
    if ((path === "/" || path === "/fleet") && this.o.page)
      return {
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": FLEET_CSP, "x-frame-options": "DENY" },
        body: await this.o.page(signal),
      };
    return text(404, "not found\n");
  }

  close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return Promise.resolve();
    s.closeAllConnections?.();
    return new Promise((r) => s.close(() => r()));
  }
}
