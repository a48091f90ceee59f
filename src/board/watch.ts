// `watch` as an async iterable of lines. It only ever wakes the bridge (watch is lossy: no JSON, no
// replay); the iterator ends when the process ends: normally when aborted, with a Transient otherwise.
import { Transient } from "../errors/board.js";
import { AsyncQueue } from "../process/queue.js";
import { runProcess } from "../process/runner.js";
import { classify } from "./classify.js";
import { parseWatchLine } from "./events.js";
import type { WatchLine } from "./port.js";

export async function* watchLines(o: { argv: string[]; env: Record<string, string>; signal: AbortSignal; board: string }): AsyncGenerator<WatchLine> {
  const inner = new AbortController();
  const onOuter = () => inner.abort(o.signal.reason);
  if (o.signal.aborted) onOuter();
  else o.signal.addEventListener("abort", onOuter, { once: true });
  const queue = new AsyncQueue<WatchLine>();
  const proc = runProcess({
    argv: o.argv,
    env: o.env,
    signal: inner.signal,
    captureLimit: 64 * 1024,
    killGraceMs: 1000,
    onStdoutLine: (line) => {
      if (line.trim() !== "") queue.push(parseWatchLine(line));
    },
  }).finally(() => queue.close());
  try {
    yield* queue;
    const res = await proc;
    if (o.signal.aborted) return;
    const err = classify(res, { verb: "watch", board: o.board });
    if (err) throw err;
    throw new Transient({ verb: "watch", board: o.board, exitCode: res.exitCode }, "watch ended");
  } finally {
    o.signal.removeEventListener("abort", onOuter);
    // Consumer stopped early: end the process and wait for it so nothing leaks.
    inner.abort(new Error("watch consumer stopped"));
    await proc.catch(() => undefined);
  }
}
