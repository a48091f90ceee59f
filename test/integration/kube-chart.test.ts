// The Kubernetes seat pool (deploy/kubernetes, kustomize): rendered by `kubectl kustomize`, every object
// valid against the Kubernetes schemas (scripts/deploy/kube-render.mjs, kubernetes-models), and the shape
// docs/deploy.md promises. Offline; the pod itself is smoke-run with podman in `npm run test:deploy`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/agents/kinds.js";

const kubectl = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => existsSync(p));
const run = !!kubectl || !!process.env.HKB_REQUIRE_KUBECTL;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: Record<string, unknown> & { template?: { metadata: { annotations: Record<string, string>; labels: Record<string, string> }; spec: PodSpec } };
  data?: Record<string, string>;
}
interface Container {
  name: string;
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  securityContext?: Record<string, unknown>;
  readinessProbe?: { httpGet: { path: string; port: string; httpHeaders: { name: string; value: string }[] } };
  livenessProbe?: { httpGet: { path: string; port: string; httpHeaders: { name: string; value: string }[] } };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  hostUsers?: boolean;
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown> & { seccompProfile: { type: string } };
  containers: Container[];
  initContainers: Container[];
  volumes: { name: string; projected?: { sources: { secret: { name: string } }[] } }[];
}

function render(overlay: string): { objects: K8sObject[]; problems: string[] } {
  return JSON.parse(
    execFileSync(process.execPath, ["scripts/deploy/kube-render.mjs", join("deploy", "kubernetes", "overlays", overlay), "--json"], { encoding: "utf8" }),
  );
}
const specOf = (o: K8sObject): Record<string, unknown> => o.spec ?? {};
const byKind = (objs: K8sObject[], kind: string) => {
  const o = objs.find((x) => x.kind === kind);
  if (!o) throw new Error(`no ${kind} rendered`);
  return o;
};
/** The seat file in the rendered ConfigMap, loaded as the bridge would load it. */
function seatConfig(objs: K8sObject[]) {
  const dir = mkdtempSync(join(tmpdir(), "hkb-kube-"));
  try {
    const file = join(dir, "seat.yaml");
    writeFileSync(file, byKind(objs, "ConfigMap").data?.["seat.yaml"] ?? "");
    return {
      raw: parse(byKind(objs, "ConfigMap").data?.["seat.yaml"] ?? "") as { shutdown: { graceSeconds: number } },
      config: loadConfig({ file, env: { HKB_HTTP_TOKEN: "t" } }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!run)("Kubernetes seat pool (kustomize)", () => {
  it("renders; every object is valid against the Kubernetes schemas; a StatefulSet with what a seat pool needs", () => {
    const { objects, problems } = render("example");
    expect(problems).toEqual([]);
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ConfigMap",
      "PodDisruptionBudget",
      "Secret",
      "Secret",
      "Secret",
      "Secret",
      "Secret",
      "Service",
      "StatefulSet",
    ]);
    const sts = byKind(objects, "StatefulSet");
    const svc = byKind(objects, "Service");
    const pdb = byKind(objects, "PodDisruptionBudget");
    const tpl = sts.spec?.template;
    if (!tpl) throw new Error("no pod template");
    const pod = tpl.spec;
    const bridge = pod.containers.find((c) => c.name === "bridge");
    if (!bridge) throw new Error("no bridge container");
    // one headless service names every seat; each seat its own state volume, mounted as the state dir
    expect(sts.spec?.serviceName).toBe(svc.metadata.name);
    expect(svc.spec?.clusterIP).toBe("None");
    expect((specOf(sts).volumeClaimTemplates as { metadata: { name: string } }[]).map((t) => t.metadata.name)).toEqual(["state"]);
    expect(bridge.volumeMounts).toContainEqual({ name: "state", mountPath: "/var/lib/hermes-bridge" });
    // a login Secret per seat ordinal, mounted only by the init container that copies its own
    const replicas = sts.spec?.replicas as number;
    const logins = pod.volumes.find((v) => v.name === "logins")?.projected?.sources.map((s) => s.secret.name);
    expect(logins).toEqual(Array.from({ length: replicas }, (_, i) => `${sts.metadata.name}-${i}-login`));
    expect(bridge.volumeMounts.some((m) => m.name === "logins")).toBe(false);
    expect(pod.initContainers[0]?.volumeMounts.some((m) => m.name === "logins")).toBe(true);
    for (const l of logins ?? []) expect(objects.some((o) => o.kind === "Secret" && o.metadata.name === l)).toBe(true);
    // the HTTP token from a Secret, under the name the seat file reads
    const { raw, config } = seatConfig(objects);
    const token = bridge.env?.find((e) => e.name === config.http.tokenEnv);
    expect(token?.valueFrom?.secretKeyRef).toEqual({ name: "hermes-bridge-http", key: "token" });
    // probes on /healthz, with a Host the bridge answers for; scrape annotations; drain time < grace
    for (const probe of [bridge.readinessProbe, bridge.livenessProbe]) {
      expect(probe?.httpGet.path).toBe("/healthz");
      expect(probe?.httpGet.httpHeaders).toEqual([{ name: "Host", value: "localhost" }]);
    }
    expect(tpl.metadata.annotations).toMatchObject({
      "prometheus.io/scrape": "true",
      "prometheus.io/port": String(config.http.port),
      "prometheus.io/path": "/metrics",
    });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(raw.shutdown.graceSeconds);
    expect(config.shutdown.graceSeconds).toBe(raw.shutdown.graceSeconds);
    expect(pdb.spec?.maxUnavailable).toBe(1);
    expect((specOf(pdb).selector as { matchLabels: Record<string, string> }).matchLabels).toEqual(tpl.metadata.labels);
    // the jail: its own user namespace, an unmasked /proc, bubblewrap's seccomp profile; nothing else
    expect(config.agent.isolation.mode).toBe("bwrap");
    expect(pod.hostUsers).toBe(false);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "Localhost" } });
    expect(bridge.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, procMount: "Unmasked" });
    // the board over ssh, its key from a Secret at the path the seat file's ssh names
    expect(config.hermes.command.join(" ")).toContain("ssh -i /run/secrets/id_ed25519");
    expect(bridge.volumeMounts).toContainEqual({ name: "board-ssh", mountPath: "/run/secrets", readOnly: true });
  });

  it("overlays/restricted: the runtime's seccomp profile, a masked /proc, the host's user namespace, isolation auto", () => {
    const { objects, problems } = render("restricted");
    expect(problems).toEqual([]);
    const pod = byKind(objects, "StatefulSet").spec?.template?.spec;
    if (!pod) throw new Error("no pod template");
    expect(pod.hostUsers).toBeUndefined();
    expect(pod.securityContext.seccompProfile).toEqual({ type: "RuntimeDefault" });
    expect(pod.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(seatConfig(objects).config.agent.isolation.mode).toBe("auto");
  });
});
