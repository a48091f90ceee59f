// The Board contract against one emulated Hermes line, over the in-process transport: the line is what this
// file tests (the transports — a process per call, the call server, the hub, ssh — are the other files').
import { Emu } from "../helpers/emulator.js";
import { InProcessTransport } from "../helpers/in-process-board.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

// 0.21.6 keeps every verb the Board contract uses as 0.21.3 has it (src/emulator/verbs/line0216.ts).
boardContract("HermesCliBoard over the emulator as Hermes 0.21.6 (HERMES_EMULATOR_COMPAT=0.21.6)", async () => {
  const emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21.6" } });
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), transport: new InProcessTransport() }));
});
