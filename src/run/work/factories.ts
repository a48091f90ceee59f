// The seat's factories of what a run builds per run (RunFactories, context.ts): the lease keeper, the
// task-tools endpoint (per-run socket + token), and timers (deadline, wrap-up, kill grace); a unit test
// replaces each piece.
import { LeaseKeeper } from "../../lease/keeper.js";
import { type Clock, sleepUnlessAborted } from "../../time/clock.js";
import { ToolSocketServer } from "../../tools/socket.js";
import { newSocketPath } from "../../tools/socket-path.js";
import type { RunFactories } from "../context.js";

export function defaultFactories(clock: Clock, env: NodeJS.ProcessEnv): RunFactories {
  return {
    keeper: (d) => new LeaseKeeper(d),
    tools: async (host, at) => {
      const server = at ? new ToolSocketServer(at.path, host, at.token) : new ToolSocketServer(newSocketPath(env), host);
      await server.listen();
      return { path: server.path, token: server.token, close: () => server.close() };
    },
    timer: (at, fire) => {
      const ac = new AbortController();
      void sleepUnlessAborted(Math.max(0, at - clock.now()), ac.signal).then((elapsed) => {
        if (elapsed) fire();
      });
      return { cancel: () => ac.abort() };
    },
  };
}
