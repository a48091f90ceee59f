import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator as upstream Hermes (named claims, renewal, guards)", async () => {
  const emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "upstream" } });
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), callServer: "on" }));
});
