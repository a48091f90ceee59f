// The same contract over real Hermes, when HERMES_BIN names it (e.g. "python3 /opt/hermes/hermes").
// Skipped otherwise. Claims are expired with a 1 s TTL and a real `dispatch`.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, vi } from "vitest";
import { HermesCliBoard } from "../../src/board/index.js";
import { splitCommand } from "../../src/config/command.js";
import { runProcess } from "../../src/process/runner.js";
import { boardContract } from "./board-contract.js";

const bin = process.env.HERMES_BIN;
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
      return {
        board: (slug) =>
          new HermesCliBoard({
            slug: slug ?? "contract",
            command,
            env: { parent: process.env, passEnv: [], set: { HERMES_HOME: home, HOME: home }, author: "contract-bridge" },
            callServer,
            ...(mode === "hub" ? { share: { dir: join(home, "hubs"), idleMs: 2000 } } : {}),
          }),
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
        // (a hub of this home may still be ending: its socket and lock go as it goes)
        cleanup: () => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }),
      };
    });
} else {
  describe("Board contract: real Hermes", () => {
    it.skipIf(!bin)("needs HERMES_BIN (not set): skipped", () => undefined);
  });
}
