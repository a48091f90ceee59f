// The deploy lane runs docs/deploy.md's recipes as the page has them (scripts/deploy/page-block.mjs): every
// block the lane's scripts name is on the page, marked, and parses as a shell script; the page's login lines
// are `init`'s (the lane checks them against init's output in its systemd machine).
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of the lane, no types
import { blockNames, pageBlock } from "../../scripts/deploy/page-block.mjs";
import { runProcess } from "../../src/process/runner.js";
import { scratchDir } from "../helpers/tmp.js";

const page = readFileSync("docs/deploy.md", "utf8");
const lane = readdirSync("scripts/deploy")
  .filter((f) => f.endsWith(".sh"))
  .map((f) => readFileSync(join("scripts/deploy", f), "utf8"))
  .join("\n");
/** The blocks the lane's scripts run or check: `page_block <name>` and `sd_page <name>`. */
const named = [...new Set([...lane.matchAll(/\b(?:page_block|sd_page) ([a-z0-9-]+)/g)].map((m) => m[1] as string))];

describe("the page's recipes the deploy lane runs", () => {
  it("names the blocks it runs, each marked on the page", () => {
    expect(named.sort()).toEqual(["compose-prepare", "compose-up", "systemd-enable", "systemd-install", "systemd-login", "systemd-seat", "systemd-start"]);
    expect((blockNames(page) as string[]).sort()).toEqual(named);
  });

  it.each(named)("%s is a shell script that parses", async (name) => {
    const block = pageBlock(page, name) as string | null;
    expect(block?.trim()).toBeTruthy();
    const r = await runProcess({ argv: ["bash", "-n", "-c", block ?? ""], env: { PATH: process.env.PATH ?? "" } });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });

  it("the systemd steps use the shipped units and init's flags", () => {
    expect(pageBlock(page, "systemd-install")).toContain('"$D/hermes-bridge@.service" "$D/hermes-bridge-hubs.service"');
    expect(pageBlock(page, "systemd-install")).toContain("install -d -o root -g hermes-bridge -m 0750 /etc/hermes-bridge");
    const seat = pageBlock(page, "systemd-seat") as string;
    expect(seat).toContain("hermes-bridge init --user hermes-bridge");
    expect(seat).toContain('--config "/etc/hermes-bridge/$name.yaml"');
    expect(seat).toContain('install -o root -g hermes-bridge -m 0640 /dev/null "/etc/hermes-bridge/$name.env"');
    // the doctor line of step 5 is the one init prints for a config in /etc/hermes-bridge (sh -c's quotes aside)
    expect(pageBlock(page, "systemd-start")).toContain(
      'runuser -u hermes-bridge -- sh -c "cd && set -a && . /etc/hermes-bridge/$s.env && XDG_CACHE_HOME=/var/cache hermes-bridge doctor --config /etc/hermes-bridge/$s.yaml"',
    );
  });
  it("step 3's seat function never empties an existing seat's secrets file: a refused init (the config exists) stops it", async () => {
    const seat = pageBlock(page, "systemd-seat") as string;
    const run = async (init: "ok" | "refused") => {
      const script = [
        `hermes-bridge() { ${init === "ok" ? "return 0" : 'echo "init: claude-1.yaml exists (--force replaces it)" >&2; return 2'}; }`,
        'install() { echo "install $*"; }',
        seat,
        "seat claude-1 claude claude",
      ].join("\n");
      return (await runProcess({ argv: ["bash", "-c", script], env: { PATH: process.env.PATH ?? "" } })).stdout;
    };
    expect(await run("refused")).not.toContain("install");
    expect(await run("ok")).toContain("install -o root -g hermes-bridge -m 0640 /dev/null /etc/hermes-bridge/claude-1.env");
  });

  it("compose's preparation makes every secrets file compose.yaml names before its first docker-compose command (1.29 refuses a build while one is missing)", async () => {
    // a clone's root: deploy/ as shipped, the operator's board key in ~/.ssh; the tools that reach out are stand-ins
    const root = scratchDir("hkb-compose-prepare-");
    mkdirSync(join(root, "deploy", "seats"), { recursive: true });
    mkdirSync(join(root, "home", ".ssh"), { recursive: true });
    copyFileSync("deploy/compose.yaml", join(root, "deploy", "compose.yaml"));
    copyFileSync("deploy/seats/seat.env.example", join(root, "deploy", "seats", "seat.env.example"));
    writeFileSync(join(root, "home", ".ssh", "board_ed25519"), "key\n");
    const script = [
      "npm() { :; }",
      'ssh-keyscan() { echo "$1 ssh-ed25519 AAAA"; }',
      "chown() { :; }",
      // docker-compose 1.29 reads every env_file of the file before any command (\"Couldn't find env file\")
      'docker-compose() { for f in $(grep -o \'seats/[a-z0-9-]*[.]env\' compose.yaml); do [ -e "$f" ] || { echo "Couldn\'t find env file: $f" >&2; return 1; }; done; echo "docker-compose $*"; }',
      "set -e",
      pageBlock(page, "compose-prepare") as string,
    ].join("\n");
    const r = await runProcess({ argv: ["bash", "-c", script], cwd: root, env: { PATH: process.env.PATH ?? "", HOME: join(root, "home") } });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("docker-compose -f compose.yaml build");
    expect(r.exitCode).toBe(0);
  });
});
