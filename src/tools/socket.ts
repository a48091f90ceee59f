// Per-run unix socket (mode 0600, in a private 0700 dir: socket-path.ts) between `hermes-bridge
// task-tools` and the daemon. JSON lines: request {token, id, tool, args} → answer {id, ok, text |
// error}. A random one-run token.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import { type Server, type Socket, createConnection, createServer } from "node:net";
import { BridgeError } from "../errors/index.js";
import { LineSplitter } from "../process/lines.js";
import { sleep } from "../time/clock.js";
import type { ToolAnswer, ToolHost } from "./host.js";
import { MAX_SOCKET_PATH_BYTES, ensureSocketDir, removeSocketDir } from "./socket-path.js";

export interface ToolRequest {
  token: string;
  id: number;
  tool: string;
  args: unknown;
}

export class ToolSocketServer {
  readonly token: string;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  /** `token` is given only to serve an adopted run again (its MCP server still holds the old one). */
  constructor(
    readonly path: string,
    private readonly host: ToolHost,
    token?: string,
  ) {
    this.token = token ?? randomBytes(24).toString("hex");
  }

  async listen(): Promise<void> {
    if (Buffer.byteLength(this.path) > MAX_SOCKET_PATH_BYTES)
      throw new BridgeError("socket_path_too_long", `the task-tools socket path ${this.path} is longer than ${MAX_SOCKET_PATH_BYTES} bytes`);
    ensureSocketDir(this.path);
    rmSync(this.path, { force: true });
    this.server = createServer((sock) => this.serve(sock));
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(this.path, () => resolve());
    });
    chmodSync(this.path, 0o600);
  }

  private serve(sock: Socket): void {
    this.sockets.add(sock);
    sock.on("close", () => this.sockets.delete(sock));
    sock.on("error", () => undefined);
    sock.setEncoding("utf8");
    const lines = new LineSplitter((line) => {
      void this.answer(line).then((a) => {
        if (!sock.destroyed) sock.write(`${JSON.stringify(a)}\n`);
      });
    }, 1024 * 1024);
    sock.on("data", (c: string) => lines.push(c));
  }

  private async answer(line: string): Promise<{ id: number } & ToolAnswer> {
    let req: ToolRequest;
    try {
      req = JSON.parse(line) as ToolRequest;
    } catch {
      return { id: -1, ok: false, error: "malformed request" };
    }
    const a = Buffer.from(String(req.token ?? ""));
    const b = Buffer.from(this.token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { id: req.id, ok: false, error: "bad token" };
    return { id: req.id, ...(await this.host.call(req.tool, req.args)) };
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    rmSync(this.path, { force: true });
    removeSocketDir(this.path);
  }
}

/** The client side (used by the MCP stdio server): one connection, requests answered in order. */
export class ToolSocketClient {
  private sock: Socket | undefined;
  private next = 1;
  private readonly pending = new Map<number, (a: ToolAnswer) => void>();
  private readonly closed = new AbortController();

  constructor(
    private readonly path: string,
    private readonly token: string,
    private readonly restartWaitMs = 60_000,
  ) {}

  /**
   * A refused connection on an existing socket file means the bridge is restarting (it left the file
   * behind when it died and will serve the run again after adopting it): wait for it. A missing file
   * means the run has ended — except for the moment the file is being re-created.
   */
  private async connect(): Promise<Socket> {
    const started = performance.now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.connectOnce();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const waited = performance.now() - started;
        const retry = (code === "ECONNREFUSED" && waited < this.restartWaitMs) || (code === "ENOENT" && waited < 1000);
        if (!retry) throw err;
        await sleep(Math.min(1000, 50 * 2 ** Math.min(attempt, 5)), this.closed.signal);
      }
    }
  }

  private connectOnce(): Promise<Socket> {
    if (this.sock && !this.sock.destroyed) return Promise.resolve(this.sock);
    return new Promise((resolve, reject) => {
      const s = createConnection(this.path, () => resolve(s));
      s.setEncoding("utf8");
      const lines = new LineSplitter(
        (line) => {
          const a = JSON.parse(line) as { id: number } & ToolAnswer;
          this.pending.get(a.id)?.(a);
          this.pending.delete(a.id);
        },
        16 * 1024 * 1024,
      );
      s.on("data", (c: string) => lines.push(c));
      s.on("error", (err) => {
        reject(err);
        for (const p of this.pending.values()) p({ ok: false, error: `the bridge is not reachable: ${err.message}` });
        this.pending.clear();
      });
      s.on("close", () => {
        for (const p of this.pending.values()) p({ ok: false, error: "the run has ended" });
        this.pending.clear();
      });
      this.sock = s;
    });
  }

  async call(tool: string, args: unknown): Promise<ToolAnswer> {
    let sock: Socket;
    try {
      sock = await this.connect();
    } catch (err) {
      return { ok: false, error: `the run has ended (bridge socket unavailable: ${(err as Error).message})` };
    }
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      sock.write(`${JSON.stringify({ token: this.token, id, tool, args })}\n`);
    });
  }

  close(): void {
    this.closed.abort(new Error("task-tools client closed"));
    this.sock?.destroy();
  }
}
