// What Hermes 0.21 adds, on the real CLI (HERMES_BIN naming a 0.21 install; `npm run test:real` runs
// this with HERMES_BIN_021): the suite of test/contract/hermes021-suite.ts. Skipped on 0.20 and without
// HERMES_BIN; the same suite runs on the emulator's 0.21 mode in every `npm test`.
import { spawnSync } from "node:child_process";
import { splitCommand } from "../../src/config/command.js";
import { hermes021Suite } from "../contract/hermes021-suite.js";
import { Emu } from "../helpers/emulator.js";

const bin = process.env.HERMES_BIN;
const command = splitCommand(bin ?? "");
/** A 0.21 CLI: `create` takes a completion contract. */
const is021 =
  !!bin &&
  /--completion-contract/.test(
    spawnSync(command[0] ?? "", [...command.slice(1), "kanban", "create", "--help"], {
      encoding: "utf8",
      env: { ...process.env, HERMES_HOME: "/nonexistent-hkb" },
    }).stdout ?? "",
  );

hermes021Suite("Hermes 0.21 on the real CLI", () => Emu.create("real", { command }), { skip: !is021 });
