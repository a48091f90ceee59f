import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator as a Hermes with named claims (named claims, renewal, guards)", async () => {
  const emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "named-claims" } });
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), callServer: "on" }));
});
