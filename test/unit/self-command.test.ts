// The commands `init` and `demo` print next must run as printed: from a checkout there is no `hermes-bridge` on PATH.
import { describe, expect, it } from "vitest";
import { selfArgv } from "../../src/cli/self.js";

describe("selfArgv: the CLI as this host runs it", () => {
  it("is hermes-bridge when started as the installed command, node <main.js> from a checkout", () => {
    expect(selfArgv("/usr/local/bin/hermes-bridge")).toEqual(["hermes-bridge"]);
    expect(selfArgv("/repo/node_modules/.bin/hermes-bridge")).toEqual(["hermes-bridge"]);
    expect(selfArgv("/work/clone/dist/cli/main.js")).toEqual(["node", "/work/clone/dist/cli/main.js"]);
    expect(selfArgv("")).toEqual(["hermes-bridge"]);
  });
});
