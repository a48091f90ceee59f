// The unit tests' board (test/helpers/in-process-board.ts: the CLI adapter over the emulator's `main()` in
// this process) passes the same Board contract as every other adapter: the unit tests stand on the one
// model of Hermes the suite keeps.
import { InProcessTransport } from "../helpers/in-process-board.js";
import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

boardContract("HermesCliBoard over the emulator in this process (the unit tests' board)", async () => {
  const emu = await Emu.create();
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), transport: new InProcessTransport() }));
});
