// A seat's part of a run (run/context.ts SeatRun) for tests that make a TaskRun by hand: the settings a
// seat built from a default config, in-memory collaborators where a test gives none.
import { SessionJournal } from "../../src/continuity/journal.js";
import type { GateConfig } from "../../src/gate/gate.js";
import { hardenedGit } from "../../src/git/runner.js";
import { Redactor } from "../../src/result/redact.js";
import { DEFAULT_MAX_PAUSE_MS } from "../../src/result/limits.js";
import type { RunSettings, SeatRun } from "../../src/run/context.js";
import type { Spend } from "../../src/state/ledger.js";
import { scratchDir } from "./tmp.js";

export const TEST_GATE: GateConfig = {
  commands: [],
  bodyVerification: false,
  allowedCommands: [],
  timeoutSeconds: 5,
  outputTailChars: 400,
  requireChanges: false,
  allowDirty: true,
  minItems: 0,
};

const NOTHING_SPENT: Spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };

/** The seat's settings of a test seat named "seat" (its lane and author too). */
export function testRunSettings(o: Partial<RunSettings> = {}): RunSettings {
  return {
    seat: "seat",
    lane: "seat",
    author: "seat",
    onLimit: undefined,
    onShutdown: undefined,
    maxLimitPauseMs: DEFAULT_MAX_PAUSE_MS,
    unconfirmedPauseMs: 600_000,
    steering: { authors: [], maxNotesPerRun: 20 },
    review: { mode: "when-asked" },
    killGraceMs: 1000,
    unreachableMs: 0,
    retry: { retries: 2, baseMs: 10_000, maxMs: 60_000 },
    runsDir: scratchDir("hkb-runs-"),
    privateRoot: scratchDir("hkb-private-"),
    continuity: { enabled: true, budget: 5 },
    gate: TEST_GATE,
    budget: {},
    ...o,
  };
}

/** A test seat's part of its runs: `closer`, `clock`, `workspaces` and `make` given, the rest made fresh. */
export function testSeatRun(
  o: Pick<SeatRun, "closer" | "clock" | "workspaces" | "make"> & Partial<Omit<SeatRun, "settings">> & { settings?: Partial<RunSettings> },
): SeatRun {
  return {
    prompts: { task: "do {{title}}", resume: "continue {{cut_reason}}" },
    journal: new SessionJournal(scratchDir("hkb-sessions-")),
    gateEnv: { PATH: process.env.PATH ?? "" },
    git: hardenedGit(process.env, { globalConfig: `${scratchDir("hkb-git-")}/config`, passEnv: [] }),
    cliOnThisHost: true,
    redactor: new Redactor(),
    skillRoots: [],
    shutdown: new AbortController().signal,
    seatToday: () => NOTHING_SPENT,
    ...o,
    settings: testRunSettings(o.settings),
  };
}
