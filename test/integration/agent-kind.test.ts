// A new agent kind is one folder and one list entry: the echo kind (test/fixtures/agent-kinds/echo/)
// is added to the list, and config (its own strict keys, with a did-you-mean), the factory, the
// pre-flight, the settings and restart recovery's stop signal all take it from there.
import { describe, expect, it } from "vitest";
import { AGENT_KINDS, kindNamed, loadConfig, preflight } from "../../src/agents/kinds.js";
import { build } from "../../src/daemon/build.js";
import { Daemon } from "../../src/daemon/daemon.js";
import { settingsTable } from "../../src/observe/settings.js";
import { silentLogger } from "../../src/log/logger.js";
import { bridgeConfig } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { echoKind } from "../fixtures/agent-kinds/echo/kind.js";

const KINDS = [...AGENT_KINDS, echoKind];

describe("adding an agent kind", () => {
  it("one folder + one list entry: the config knows its keys, the daemon runs it, the rest asks it", async () => {
    const emu = await Emu.create();
    try {
      const base = bridgeConfig(emu);
      const o = {
        env: {},
        base: {
          boards: base.boards,
          assignee: base.assignee,
          stateDir: base.stateDir,
          hermes: { command: emu.command, home: emu.home },
          agent: { kind: "echo", greeting: "hello" },
        },
      };
      expect(() => loadConfig(o)).toThrow(/agent/); // without the entry, the kind is unknown
      expect(() => loadConfig({ ...o, base: { ...o.base, agent: { kind: "echo", greting: "x" } } }, KINDS)).toThrow(
        /agent\.greting: unknown key — did you mean 'greeting'\?/,
      );
      const config = loadConfig(o, KINDS);
      expect(settingsTable(config).find((s) => s.key === "agent.kind")?.value).toBe("echo");
      expect(await preflight(config, {}, KINDS)).toMatchObject({ ok: true, detail: "echo says hello" });
      expect(kindNamed("echo", KINDS)?.stopSignal).toBe("SIGHUP");
      const id = await emu.createTask("echo me", { assignee: base.assignee });
      const built = await build(config, process.env, silentLogger, undefined, KINDS);
      const daemon = new Daemon({ ...built, once: true });
      await daemon.start();
      await daemon.done;
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs.at(-1)?.summary).toBe("echo: hello");
      expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { agent: "echo" } });
    } finally {
      emu.cleanup();
    }
  });
});
