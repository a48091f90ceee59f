// The Board contract against one emulated Hermes line, over the in-process transport: the line is what this
// file tests (the transports — a process per call, the call server, the hub, ssh — are the other files').
import { Emu } from "../helpers/emulator.js";
import { InProcessTransport } from "../helpers/in-process-board.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator as a Hermes with named claims (named claims, renewal, guards)", async () => {
  const emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "named-claims" } });
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), transport: new InProcessTransport() }));
});
