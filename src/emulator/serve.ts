// `hermes-kanban-emulator --call-server`: the emulator speaking the bridge's call-server protocol
// (callserver/hermes_callserver.py) so that `hermes.callServer: on` works against it — each call runs
// in this process (main() is a function) under a pid of its own that the claim's lock names, announced
// before the call runs. A killed call answers at once; what it would still have done is dropped.
import { createInterface } from "node:readline";
import { hostname } from "node:os";
import { main } from "./main.js";

type Request = { id: number; argv?: string[]; env?: Record<string, string>; inherit?: boolean; op?: string };

export async function serve(logCall: (args: string[], start: number, code: number, env: NodeJS.ProcessEnv) => void): Promise<void> {
  const send = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
  const done = new Set<number>();
  let nextPid = 9_000_000 + (process.pid % 100_000) * 10;
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  send({ event: "ready", host: hostname(), pid: process.pid, python: null, warm: 0 });
  const lines = createInterface({ input: process.stdin });
  const running: Promise<void>[] = [];
  for await (const line of lines) {
    if (!line.trim()) continue;
    let req: Request;
    try {
      req = JSON.parse(line) as Request;
    } catch {
      send({ event: "error", message: "not a JSON request" });
      continue;
    }
    if (req.op === "kill") {
      if (!done.has(req.id)) {
        done.add(req.id);
        send({ id: req.id, event: "done", code: null, signal: "SIGTERM", stdout: "", stderr: "", truncated: false });
      }
      continue;
    }
    const pid = nextPid++;
    const env = { ...(req.inherit ? process.env : {}), ...(req.env ?? {}), HERMES_EMULATOR_CALL_PID: String(pid) };
    const argv = req.argv ?? [];
    send({ id: req.id, event: "started", pid });
    const start = Date.now();
    running.push(
      main(argv, env).then(
        (r) => {
          logCall(argv, start, r.code, env);
          if (done.has(req.id)) return;
          done.add(req.id);
          send({ id: req.id, event: "done", code: r.code, signal: null, stdout: b64(r.stdout), stderr: b64(r.stderr), truncated: false });
        },
        (err: unknown) => {
          if (done.has(req.id)) return;
          done.add(req.id);
          const text = `Traceback (most recent call last):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
          send({ id: req.id, event: "done", code: 1, signal: null, stdout: "", stderr: b64(text), truncated: false });
        },
      ),
    );
  }
  // stdin closed: no new calls; the ones that can still end are not waited for past a moment.
  await Promise.race([Promise.allSettled(running), new Promise((r) => setTimeout(r, 1000))]);
  process.exit(0);
}
