// The Hermes 0.21 suite (test/contract/hermes021-suite.ts) on the emulator's 0.21 mode
// (HERMES_EMULATOR_COMPAT=0.21, replayed byte for byte against the real 0.21.3 recordings): the review
// hand-off, the task's pins and a completion contract, in every `npm test` — and on the 0.21.5 mode.
import { hermes021Suite } from "../contract/hermes021-suite.js";
import { Emu } from "../helpers/emulator.js";

hermes021Suite("Hermes 0.21 on the emulator's 0.21 mode", () => Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21" } }));
// 0.21.4/0.21.5 (the 0.21.5 mode, src/emulator/verbs/line0215.ts) keep all of it.
hermes021Suite("Hermes 0.21 on the emulator's 0.21.5 mode", () => Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21.5" } }));
