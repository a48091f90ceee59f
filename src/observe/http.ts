// Loopback HTTP: / (the fleet page), /healthz (200 when the loop is alive and the boards answer), /metrics, /status.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "./metrics.js";

export interface ObservedDaemon {
  healthy(): boolean;
  status(): unknown;
}

export class HttpServer {
  private server: Server | undefined;
  constructor(
    private readonly daemon: ObservedDaemon,
    private readonly metrics: Metrics,
    /** The fleet page served at `/` (HTML). */
    private readonly page?: () => Promise<string>,
  ) {}

  async listen(port: number, host = "127.0.0.1"): Promise<number> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      void (async () => {
        if (path === "/healthz") {
          const ok = this.daemon.healthy();
          res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" }).end(ok ? "ok\n" : "unhealthy\n");
        } else if (path === "/status") {
          res.writeHead(200, { "content-type": "application/json" }).end(`${JSON.stringify(this.daemon.status(), null, 2)}\n`);
        } else if (path === "/metrics") {
          this.daemon.status(); // refreshes the gauges
          res.writeHead(200, { "content-type": this.metrics.registry.contentType }).end(await this.metrics.registry.metrics());
        } else if ((path === "/" || path === "/fleet") && this.page) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(await this.page());
        } else res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return Promise.resolve();
    return new Promise((r) => s.close(() => r()));
  }
}
