// A scripted webhook receiver on 127.0.0.1: records requests, can be told to fail.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: Record<string, unknown>;
}

export class WebhookServer {
  readonly received: Received[] = [];
  failing = false;
  private waiters: (() => void)[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookServer> {
    let self: WebhookServer | undefined;
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", () => {
        if (self?.failing) {
          res.writeHead(503).end("down");
          return;
        }
        self?.received.push({ headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown> });
        res.writeHead(204).end();
        for (const w of self?.waiters.splice(0) ?? []) w();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    self = new WebhookServer(server);
    return self;
  }

  get url(): string {
    const a = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${a.port}/alerts`;
  }

  async waitFor(n: number): Promise<void> {
    while (this.received.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
