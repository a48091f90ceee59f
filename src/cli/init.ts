// `hermes-bridge init`: a first seat in minutes. Writes a commented config for a board, a seat and an
// agent setup (init-setups.ts), checked by the same loader `run` uses before anything is written; makes
// the seat's state dir and its agent's per-seat home (the kind says where); prints the exact login the
// kind declares (the same text doctor's fix gives) and what comes next; then runs doctor. As root with
// --user, the seat is the service user's (init-user.ts): the login and doctor are printed as that user.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Document, isMap, isScalar, isSeq, type Pair, parse as parseYaml, type YAMLMap } from "yaml";
import { kindNamed, loadConfig } from "../agents/kinds.js";
import { slug } from "../config/fields.js";
import { type Config, defaultStateRoot } from "../config/schema.js";
import { ExitError } from "../errors/index.js";
import { ensureStateDir } from "../state/dir.js";
import { doctorCommand } from "./doctor.js";
import { type Setup, type SetupInput, setupNamed } from "./init-setups.js";
import { shellLine } from "../agents/cli-login.js";
import { selfArgv } from "./self.js";
import { asUser, handOver, type ServiceUser, serviceUser } from "./init-user.js";

export interface InitOptions extends SetupInput {
  board: string;
  agent: string;
  seat?: string | undefined;
  assignee?: string | undefined;
  config?: string | undefined;
  stateDir?: string | undefined;
  hermes?: string | undefined;
  hermesHome?: string | undefined;
  /** hermes.share: host — this host's seats of the board share one call server and watch (docs/call-server.md). */
  hermesShare?: string | undefined;
  force?: boolean;
  doctor?: boolean;
  /** As root: the service user the seat is for (the systemd unit's User=). */
  user?: string | undefined;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The jail and its network, said where the operator first reads the seat's config (docs/security.md). */
const ISOLATION_COMMENTS: Record<string, string> = {
  isolation: " the agent's jail (bubblewrap) and its network — docs/security.md",
  mode: " auto: the jail where bubblewrap works here (doctor says), loudly without; bwrap: refuse to start without it",
  network: " proxy: only the agent's API and login hosts plus allowHosts, never this host's loopback or private ranges; host: the host's network (loud); none",
  allowHosts: ' more hosts the agent may reach: git remotes, package registries — e.g. [github.com, registry.npmjs.org, "github.com:22"]',
};

/** The document: every key with its comment above it, lists in flow style. */
function render(setup: Setup, o: InitOptions, v: { lane: string; stateDir: string; file: string }): string {
  const hermes: Record<string, unknown> = {
    command: o.hermes ?? "hermes",
    ...(o.hermesHome ? { home: o.hermesHome } : {}),
    ...(o.hermesShare ? { share: o.hermesShare } : {}),
  };
  const agentItems = setup.agent(o);
  const doc = new Document({
    boards: [o.board],
    assignee: v.lane,
    stateDir: v.stateDir,
    hermes,
    agent: { kind: setup.kind, ...Object.fromEntries(agentItems.map((i) => [i.key, i.value])), isolation: { mode: "auto", network: "proxy", allowHosts: [] } },
  });
  doc.commentBefore = [
    ` A hermes-bridge seat: ${setup.describe}.`,
    ` Written by \`hermes-bridge init\`. Every key and its default: config.example.yaml (docs/first-seat.md walks each setup).`,
    ` Check it: hermes-bridge doctor --config ${v.file}`,
    ` Run it:   hermes-bridge run --config ${v.file}`,
  ].join("\n");
  const comments: Record<string, string> = {
    boards: " the board(s) this seat works: it claims their ready tasks assigned to its lane",
    assignee: " the seat's lane: assign tasks to it (never a Hermes profile name — a gateway would spawn its own worker); seats sharing it form a pool",
    stateDir: " outbox, sessions, the agent's login home and status (mode 0700, this user's only)",
    hermes: ' how this host reaches the board\'s `hermes kanban` CLI (another host: "ssh -T board-host hermes")',
    agent: ` the agent (kind ${setup.kind})${setup.loginIds?.length ? "; its login home is in the state dir" : ""}`,
  };
  const map = doc.contents as YAMLMap;
  for (const pair of map.items as Pair[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    if (isScalar(pair.key) && comments[key]) pair.key.commentBefore = comments[key];
    if (isSeq(pair.value)) pair.value.flow = true;
    if (key === "agent" && isMap(pair.value))
      for (const p of pair.value.items as Pair[]) {
        const item = agentItems.find((i) => isScalar(p.key) && i.key === p.key.value);
        if (item?.comment && isScalar(p.key)) p.key.commentBefore = item.comment;
        if (isScalar(p.key) && p.key.value === "isolation" && isMap(p.value)) {
          p.key.commentBefore = ISOLATION_COMMENTS.isolation;
          for (const q of p.value.items as Pair[]) {
            if (isScalar(q.key)) q.key.commentBefore = ISOLATION_COMMENTS[String(q.key.value)];
            if (isSeq(q.value)) q.value.flow = true;
          }
        }
        if (isSeq(p.value) && (p.value.items.length ?? 0) <= 2 && item?.key !== "config") p.value.flow = true;
      }
    if (key === "hermes" && isMap(pair.value))
      for (const p of pair.value.items as Pair[]) {
        if (isSeq(p.value)) p.value.flow = true;
        if (isScalar(p.key) && p.key.value === "share")
          p.key.commentBefore =
            " host: this host's seats of the board share one call server and watch, the hub (docs/call-server.md; under systemd: hermes-bridge-hubs.service)";
      }
  }
  return doc.toString({ lineWidth: 0 });
}

/** The config as `run` will read it — checked before the file is written (a bad --model or URL is said now). */
function check(text: string, env: NodeJS.ProcessEnv): Config {
  return loadConfig({ env, base: parseYaml(text) as Record<string, unknown> });
}

export async function initCommand(
  o: InitOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const setup = setupNamed(o.agent);
  if (!slug.safeParse(o.board).success) throw new ExitError(2, `init --board: '${o.board}' is not a board slug (lowercase letters, digits, '-' or '_')`);
  const seat = o.seat ?? o.assignee;
  if (!seat) throw new ExitError(2, "init: name the seat: --seat <name> (its lane, --assignee, defaults to it)");
  const lane = o.assignee ?? seat;
  for (const [flag, v] of [
    ["--seat", seat],
    ["--assignee", lane],
  ] as const)
    if (!NAME.test(v)) throw new ExitError(2, `init ${flag}: '${v}' is not a name (lowercase letters, digits, '-' or '_', up to 64)`);
  const user: ServiceUser | null = o.user !== undefined ? await serviceUser(o.user) : null;
  const stateDir = resolve(o.stateDir ?? join(defaultStateRoot(), seat));
  const file = resolve(o.config ?? `${seat}.yaml`);
  if (existsSync(file) && !o.force) throw new ExitError(2, `init: ${file} exists — choose another --config, or --force to replace it`);
  const text = render(setup, o, { lane, stateDir, file });
  const config = check(text, env);
  writeFileSync(file, text, { mode: 0o600, flag: o.force ? "w" : "wx" });
  ensureStateDir(stateDir);
  const kind = kindNamed(setup.kind);
  const home = kind?.home?.(config.agent, stateDir);
  if (home) mkdirSync(home, { recursive: true, mode: 0o700 });
  if (user) handOver(user, { config: file, dirs: [stateDir, ...(home ? [home] : [])] });
  print(`wrote ${file}: seat ${seat} (lane ${lane}) on board ${o.board}, ${setup.describe}\n`);
  print(`state dir ${stateDir}${home ? `; the agent's login home ${home}` : ""}${user ? ` (${user.name}'s; the config root's, read by its group)` : ""}\n\n`);
  const steps = (kind?.login?.(config.agent, stateDir) ?? [])
    .filter((s) => setup.loginIds?.includes(s.id))
    .sort((a, b) => (setup.loginIds?.indexOf(a.id) ?? 0) - (setup.loginIds?.indexOf(b.id) ?? 0));
  if (steps.length > 0) {
    print("Log the seat in (once):\n");
    for (const [n, s] of steps.entries()) print(`  ${n === 0 ? "" : "or, "}${s.what}:\n    ${asUser(user, s.command)}\n${s.after ? `    ${s.after}\n` : ""}`);
  } else for (const line of setup.instead?.(o) ?? []) print(`  ${line}\n`);
  // Unit and service-user lines name the installed command; a checkout's own lines name how it was run (cli/self.ts).
  const doctor = shellLine({}, [...(user ? ["hermes-bridge"] : selfArgv()), "doctor", "--config", file]);
  // The shipped unit reads /etc/hermes-bridge/<instance>.yaml: a config there is that instance's, and doctor
  // sees what its unit will — the instance's secrets file and the units' cache directory.
  const unit = file === join("/etc", "hermes-bridge", `${seat}.yaml`);
  const secrets = shellLine({}, [join("/etc", "hermes-bridge", `${seat}.env`)]);
  const then = !user
    ? doctor
    : unit
      ? asUser(user, `set -a && . ${secrets} && XDG_CACHE_HOME=/var/cache ${doctor}`)
      : shellLine({}, ["runuser", "-u", user.name, "--", "hermes-bridge", "doctor", "--config", file]);
  print(`\nThen: ${then}\n`);
  print(
    `Run:  ${unit ? `systemctl enable --now hermes-bridge@${seat}` : `${shellLine({}, [...(user ? ["runuser", "-u", user.name, "--", "hermes-bridge"] : selfArgv()), "run", "--config", file])}   (one daemon per seat: deploy/hermes-bridge@.service)`}\n`,
  );
  print(`Work: hermes kanban --board ${o.board} create "a task" --assignee ${lane}\n`);
  // doctor run here would check root's view of the seat, not its user's: printed above instead.
  if (o.doctor === false || user) return 0;
  print("\n");
  const code = await doctorCommand({ config: file, flags: {} }, env, print);
  print(code === 0 ? "\ndoctor: every check passed — the seat is ready\n" : "\ndoctor: fix what failed (the login above first), then run doctor again\n");
  return 0;
}
