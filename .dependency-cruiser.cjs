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
  ["sandbox"],
  ["config", "result", "log"],
  ["errors", "time"],
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
