// Which test files are `npm test` and which are the lanes beside it (`npm run test:lanes`; CI runs both,
// `npm run test:all` runs both in one vitest). `npm test` is the check a developer runs before every
// commit, within 4 minutes on 2 cores at half speed: the unit tests, every port's contract suite and the
// integration files of the task's path on the emulator. The lanes are the files that pay for real
// processes by the dozen on purpose — the real agent CLIs (Claude Code ~1 CPU-s a start), a jail per case
// (bubblewrap, the relay, the cgroup), Chromium, seats restarted as processes, real waits of the protocol
// (a TTL outlived, grace periods) — and the attack lane: each one is listed with what makes it a lane.
// Nothing here is optional: a lane that fails fails CI like `npm test`.

/** Files (globs from the repository's root) that run in the lanes project, not in `npm test`. */
export const LANE_FILES: readonly { glob: string; why: string }[] = [
  { glob: "test/e2e/**/*.test.ts", why: "the real agent CLIs (Claude Code, Codex) from npm, in their jails" },
  { glob: "test/hostile/**/*.test.ts", why: "the attack lane: a real jail, real links, real children per case" },
  { glob: "test/soak/**/*.test.ts", why: "the soak slice: a mixed fleet for ~40 s" },
  { glob: "test/real/**/*.test.ts", why: "real Hermes (skips without HERMES_BIN; `npm run test:real` names it)" },
  { glob: "test/contract/call-server.test.ts", why: "real Python launchers started, hung and replaced" },
  {
    glob: "test/contract/emulator-board.test.ts",
    why: "the Board contract with a Node start per call (~200 of them, ~0.1 CPU-s each): npm test runs it in process, through the call server and the hub",
  },
  { glob: "test/contract/ssh-board.test.ts", why: "the Board contract through a fake ssh: a shell and a Node start per call (~190)" },
  { glob: "test/integration/restart.test.ts", why: "daemons SIGKILLed and SIGTERMed as processes, real Claude Code" },
  { glob: "test/integration/cli-agents.test.ts", why: "the Claude/Codex adapters end to end, both isolations" },
  { glob: "test/integration/continuity.test.ts", why: "sessions continued across daemon processes" },
  { glob: "test/integration/daemon-live.test.ts", why: "the daemon as a process: signals, stop under way" },
  { glob: "test/integration/fleet-page.test.ts", why: "Chromium renders the fleet page" },
  { glob: "test/integration/stats.test.ts", why: "~50 tasks across three seats, a 5 s claim outlived in real time" },
  { glob: "test/integration/workspaces.test.ts", why: "real git clones and worktrees per case" },
  { glob: "test/integration/gate.test.ts", why: "real gate commands in the jail" },
  { glob: "test/integration/cli.test.ts", why: "the CLI as processes (init, demo, run)" },
  { glob: "test/integration/doctor.test.ts", why: "doctor's probes as processes, the hub service" },
  { glob: "test/integration/operator-cli.test.ts", why: "an operator's commands as processes" },
  { glob: "test/integration/command-builds.test.ts", why: "agent scripts that run builds and leave children" },
  { glob: "test/integration/unreachable.test.ts", why: "a board that stops answering, waited out" },
  { glob: "test/integration/renewal.test.ts", why: "a 30 s TTL outlived in real time" },
  { glob: "test/integration/tool-budget.test.ts", why: "agents flooding their tools until the budget cuts them" },
];
