// `watch` as an async iterable of lines. It only ever wakes the bridge (hazard 18); the
// iterator ends when the process ends: normally when aborted, with a Transient otherwise.
import { runProcess } from "../process/runner.js";
import { classify } from "./classify.js";
import { Transient } from "./errors.js";
import { parseWatchLine } from "./parse.js";
import type { WatchLine } from "./port.js";

export async function* watchLines(o: {
  argv: string[];
  env: Record<string, string>;
  signal: AbortSignal;
  board: string;
}): AsyncGenerator<WatchLine> {
  const inner = new AbortController();
  const onOuter = () => inner.abort(o.signal.reason);
  if (o.signal.aborted) onOuter();
  else o.signal.addEventListener("abort", onOuter, { once: true });
  const queue: WatchLine[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const proc = runProcess({
    argv: o.argv,
    env: o.env,
    signal: inner.signal,
    captureLimit: 64 * 1024,
    killGraceMs: 1000,
    onStdoutLine: (line) => {
      if (line.trim() === "") return;
      queue.push(parseWatchLine(line));
      notify();
    },
  }).finally(() => {
    done = true;
    notify();
  });
  try {
    for (;;) {
      while (queue.length > 0) {
        const next = queue.shift();
        if (next) yield next;
      }
      if (done) break;
      await new Promise<void>((r) => {
        wake = r;
      });
    }
    const res = await proc;
    if (o.signal.aborted) return;
    const err = classify(res, { verb: "watch", board: o.board });
    if (err) throw err;
    throw new Transient({ verb: "watch", board: o.board, exitCode: res.exitCode }, "watch ended");
  } finally {
    o.signal.removeEventListener("abort", onOuter);
    if (!done) {
      // Consumer stopped early: end the process and wait for it so nothing leaks.
      inner.abort(new Error("watch consumer stopped"));
      await proc.catch(() => undefined);
    }
  }
}
