// The Board contract through the host's hub (hermes.share: host, src/board/hub.mts): calls relayed to one
// call server the seats share, the watch from the hub's one watch of the board — the same contract as a
// seat's own server and watch.
import { join } from "node:path";
import { afterAll } from "vitest";
import { Emu } from "../helpers/emulator.js";
import { endHubs } from "../helpers/hubs.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

const dirs: string[] = [];
afterAll(() => endHubs(dirs));

boardContract("HermesCliBoard through the host's hub (hermes.share: host)", async () => {
  const emu = await Emu.create();
  const dir = join(emu.dir, "hubs");
  dirs.push(dir);
  return emulatorHarness(emu, (slug) => emu.board({ ...(slug ? { slug } : {}), callServer: "on", share: { dir, idleMs: 2000 } }));
});
