import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator as Hermes 0.21.3 (HERMES_EMULATOR_COMPAT=0.21)", async () => {
  const emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21" } });
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), callServer: "on" }));
});
