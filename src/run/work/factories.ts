// What a TaskRun builds per run, injected so a unit test can replace each piece: the lease keeper,
// the task-tools endpoint (per-run socket + token), and timers (deadline, wrap-up, kill grace).
import { type Keeper, LeaseKeeper, type LeaseKeeperDeps } from "../../lease/keeper.js";
import { type Clock, sleepUnlessAborted } from "../../time/clock.js";
import type { ToolHost } from "../../tools/host.js";
import { ToolSocketServer } from "../../tools/socket.js";
import { newSocketPath } from "../../tools/socket-path.js";

export interface ToolsEndpoint {
  path: string;
  token: string;
  close(): Promise<void>;
}

export interface Timer {
  cancel(): void;
}

export interface RunFactories {
  keeper(d: LeaseKeeperDeps): Keeper;
  /** Serves the run's tools; `at` given = serve an adopted run again at its recorded path and token. */
  tools(host: ToolHost, at?: { path: string; token: string }): Promise<ToolsEndpoint>;
  /** Calls `fire` at epoch ms `at` unless cancelled first. */
  timer(at: number, fire: () => void): Timer;
}

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
