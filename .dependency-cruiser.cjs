// The layer rule as a gate (`npm run layers`, part of `npm test`): imports point down, type-only imports
// included; no cycles; the emulator stands apart. A folder may import its own files and any folder of
// a lower layer — never a higher one, never a sibling of its own layer.
const LAYERS = [
  ["cli"],
  ["daemon"],
  ["run", "observe"],
  ["discovery", "agents", "gate", "outbox", "continuity", "workspace"],
  ["tools"],
  ["lease"],
  ["board", "git", "jail", "skills", "egress"],
  ["state", "process"],
  ["agent-files"],
  ["config", "result", "log"],
  ["errors", "time"],
];

// run/ in three rooms over its bottom: prepare/, work/ and close/ import the bottom of run/ (record.ts,
// context.ts, events.ts and the block table, blocks/) and lower layers — never each other, never the story
// (task-run.ts, which imports them all); the bottom imports no room. A folder of run/ is a room or blocks/.
const RUN_ROOMS = ["prepare", "work", "close"];
const runRooms = [
  ...RUN_ROOMS.map((room) => ({
    name: `run-room-${room}`,
    comment: `run/${room}/ imports only the bottom of run/ (record.ts, context.ts, events.ts, blocks/) and lower layers: no other room of run/, not task-run.ts`,
    severity: "error",
    from: { path: `^src/run/${room}/` },
    to: { path: `^src/run/(task-run\\.ts$|(?!${room}/|blocks/)[^/]+/)` },
  })),
  {
    name: "run-bottom",
    comment: "the bottom of run/ (record.ts, context.ts, events.ts, blocks/) imports none of its rooms and not task-run.ts",
    severity: "error",
    from: { path: "^src/run/(blocks/|(?!task-run\\.ts$)[^/]+$)" },
    to: { path: `^src/run/(task-run\\.ts$|(${RUN_ROOMS.join("|")})/)` },
  },
  {
    name: "run-folders",
    comment: "a folder of run/ is one of its rooms (prepare/, work/, close/) or the block table (blocks/): a new one gets a rule here",
    severity: "error",
    from: { path: `^src/run/(?!(${[...RUN_ROOMS, "blocks"].join("|")})/)[^/]+/` },
    to: {},
  },
];

const folder = (names) => `^src/(${names.join("|")})/`;
const forbidden = LAYERS.flatMap((layer, i) =>
  layer.map((name) => {
    const allowed = LAYERS.slice(i + 1).flat();
    return {
      name: `layer-${name}`,
      comment: `${name} may import only lower layers (${allowed.join(", ") || "none"})`,
      severity: "error",
      from: { path: `^src/${name}/` },
      to: { path: "^src/", pathNot: [`^src/${name}/`, ...(allowed.length ? [folder(allowed)] : [])] },
    };
  }),
);

module.exports = {
  forbidden: [
    ...forbidden,
    ...runRooms,
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    {
      name: "wire-read-in-board",
      comment:
        "the board's wire (show/list/claim output, event payloads, Python-repr watch lines) is parsed only in board/ (parse.ts, events.ts): the rest of the bridge gets typed values",
      severity: "error",
      from: { path: "^src/(?!board/)" },
      to: { path: "^src/board/(parse|events)\\.ts$" },
    },
    {
      name: "emulator-apart",
      comment: "the emulator is a test double: production code never imports it, it imports nothing of the bridge",
      severity: "error",
      from: { path: "^src/(?!emulator/)" },
      to: { path: "^src/emulator/" },
    },
    { name: "emulator-alone", severity: "error", from: { path: "^src/emulator/" }, to: { path: "^src/(?!emulator/)" } },
    {
      name: "every-folder-in-a-layer",
      comment: "a new folder of src/ gets a place in LAYERS (.dependency-cruiser.cjs)",
      severity: "error",
      from: { path: `^src/(?!(${[...LAYERS.flat(), "emulator"].join("|")})/)` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
    exclude: { path: "^(dist|test|bench)/" },
  },
};
