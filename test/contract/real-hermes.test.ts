// The same contract over real Hermes, when HERMES_BIN names it (e.g. "python3 /opt/hermes/hermes").
// Skipped otherwise. Claims are expired with a 1 s TTL and a real `dispatch`.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, vi } from "vitest";
import { HermesCliBoard } from "../../src/board/index.js";
import { splitCommand } from "../../src/config/command.js";
import { runProcess } from "../../src/process/runner.js";
import { boardContract } from "./board-contract.js";

const bin = process.env.HERMES_BIN;

/** Resolves once `pid` is gone (looked at every 50 ms), or after 20 s: the cleanup goes on either way. */
async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The hubs started for `home` (their command line names its hubs folder), ended: resolves once they are gone. */
async function endHubsOf(home: string): Promise<void> {
  const hubs = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
        return cmd.includes("hub.mjs") && cmd.includes(join(home, "hubs"));
      } catch {
        return false;
      }
    })
    .map(Number);
  for (const pid of hubs) process.kill(pid, "SIGTERM");
  await Promise.all(hubs.map((pid) => exited(pid)));
}
// Every call is a Python process (call server off) while the other real-lane files run theirs: a
// contract case that takes 13 s alone can take several times that on 2 busy cores.
vi.setConfig({ testTimeout: 240_000 });

if (bin) {
  // "hub": the call server and the watch through the host's hub (hermes.share: host)
  for (const mode of ["off", "on", "hub"] as const)
    boardContract(`HermesCliBoard over real Hermes (${mode === "hub" ? "through the host's hub" : `call server ${mode}`})`, async () => {
      const callServer = mode === "off" ? "off" : "on";
      const command = splitCommand(bin);
      const home = mkdtempSync(join(tmpdir(), "hkb-real-"));
      const env = { PATH: process.env.PATH ?? "", HERMES_HOME: home, HOME: home };
      const cli = async (args: string[]) => {
        const r = await runProcess({ argv: [...command, "kanban", ...args], env, timeoutMs: 60_000 });
        if (r.exitCode !== 0) throw new Error(r.stderr);
        return r.stdout;
      };
      await cli(["boards", "create", "contract"]);
      const made: HermesCliBoard[] = [];
      const keep = (b: HermesCliBoard) => {
        made.push(b);
        return b;
      };
      return {
        board: (slug) =>
          keep(
            new HermesCliBoard({
              slug: slug ?? "contract",
              command,
              env: { parent: process.env, passEnv: [], set: { HERMES_HOME: home, HOME: home }, author: "contract-bridge" },
              callServer,
              ...(mode === "hub" ? { share: { dir: join(home, "hubs"), idleMs: 2000 } } : {}),
            }),
          ),
        seed: async (title, assignee, body, o) =>
          (
            JSON.parse(
              await cli([
                "--board=contract",
                "create",
                "--json",
                `--assignee=${assignee}`,
                ...(body ? [`--body=${body}`] : []),
                ...(o?.maxRuntime ? [`--max-runtime=${o.maxRuntime}`] : []),
                // a `worktree` task on a board with no default_workdir: the claim takes effect, then the CLI fails
                ...(o?.claimFailsAfterEffect ? ["--workspace=worktree"] : []),
                "--",
                title,
              ]),
            ) as { id: string }
          ).id,
        attachments: async (id) =>
          (JSON.parse(await cli(["--board=contract", "attachments", "--json", "--", id])) as { filename: string; size: number; stored_path: string }[]).map(
            (a) => ({ filename: a.filename, size: a.size, content: readFileSync(a.stored_path, "utf8") }),
          ),
        expireAndDispatch: async (id) => {
          await cli(["--board=contract", "reclaim", "--", id]);
        },
        comments: async (id) =>
          (JSON.parse(await cli(["--board=contract", "show", "--json", "--", id])) as { comments: { author: string; body: string }[] }).comments,
        // Every board closed and this home's hub ended (SIGTERM, its own way out) before the home goes: a hub
        // still ending writes its socket and lock there (on a loaded lane, past the rm's retries).
        cleanup: async () => {
          await Promise.all(made.map((b) => b.close()));
          await endHubsOf(home);
          rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
        },
      };
    });
} else {
  describe("Board contract: real Hermes", () => {
    it.skipIf(!bin)("needs HERMES_BIN (not set): skipped", () => undefined);
  });
}
