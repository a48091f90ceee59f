// Remote "seats" that answer /status the way an attacker (or a broken seat) would: a field of the wrong
// type, markup in a number's place, an endless body, no answer at all. Each counts its requests and
// says when a client went away, so tests can see a fetch shared and a fetch aborted.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type HostileKind = "wrong-type" | "xss" | "endless" | "silent" | "huge-number" | "not-json";

export interface HostileSeat {
  url: string;
  requests: number;
  /** Requests whose client closed the connection before the answer ended. */
  aborted: number;
  close(): Promise<void>;
}

const BODIES: Record<Exclude<HostileKind, "endless" | "silent">, string> = {
  "wrong-type": JSON.stringify({ at: new Date().toISOString(), seat: { name: 12345 }, runs: [] }),
  xss: JSON.stringify({ at: new Date().toISOString(), seat: { name: "evil" }, outbox: { backlog: "<script>alert(1)</script>" }, runs: [] }),
  // 1e400 is JSON a parser reads as Infinity: a number the fleet must not take
  "huge-number": `{"at":"${new Date().toISOString()}","seat":{"name":"n"},"usage":{"today":{"tokens":1e400,"costUsd":1,"runs":1,"unmeasured":0},"window5h":{"tokens":0,"costUsd":0,"runs":0,"unmeasured":0}}}`,
  "not-json": "<html><script>alert(1)</script></html>",
};

export async function hostileSeat(kind: HostileKind): Promise<HostileSeat> {
  const state = { requests: 0, aborted: 0 };
  const server: Server = createServer((_req, res) => {
    state.requests += 1;
    res.on("close", () => {
      if (!res.writableFinished) state.aborted += 1;
    });
    if (kind === "silent") return; // never answers
    if (kind === "endless") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"seat":{"name":"');
      const chunk = "x".repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(BODIES[kind]);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/status`,
    get requests() {
      return state.requests;
    },
    get aborted() {
      return state.aborted;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
