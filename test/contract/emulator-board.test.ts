import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator (a process per call)", async () => {
  const emu = await Emu.create();
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), callServer: "off" }));
});
