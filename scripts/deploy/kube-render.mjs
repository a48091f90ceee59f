#!/usr/bin/env node
// The Kubernetes seat pool, offline: renders a kustomize overlay (`kubectl kustomize`), validates every
// object against the Kubernetes schemas (kubernetes-models: the API's OpenAPI definitions, no cluster,
// no network), and — with --smoke — writes what `podman kube play` can run of it: the ordinal-0 seat as
// the Pod its StatefulSet would make (its claim from the volumeClaimTemplate, its host name), plus a board
// host sidecar reached as board-host over the pod's loopback, and the ConfigMap and Secrets it mounts.
//   kube-render.mjs <overlay dir> [--json] [--smoke <out.yaml> --board-image <image>]
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseAllDocuments, stringify } from "yaml";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { json: { type: "boolean" }, smoke: { type: "string" }, "board-image": { type: "string", default: "hkb-test/board" } },
});
const overlay = positionals[0];
if (!overlay) throw new Error("usage: kube-render.mjs <overlay dir> [--json] [--smoke <out.yaml>]");

const rendered = execFileSync("kubectl", ["kustomize", overlay], { encoding: "utf8" });
const objects = parseAllDocuments(rendered).map((d) => d.toJS());
// kustomize wraps a Secret's base64 at 76 columns; the API server's decoder (Go's base64) skips the
// line breaks, the schema's "byte" format does not: compare what the server would decode.
for (const o of objects)
  if (o.kind === "Secret" && o.data) for (const k of Object.keys(o.data)) o.data[k] = String(o.data[k]).replace(/\s+/g, "");
const problems = [];
for (const o of objects) {
  const where = `${o.kind}/${o.metadata?.name}`;
  let Model;
  try {
    Model = (await import(`kubernetes-models/${o.apiVersion}`))[o.kind];
  } catch {}
  if (!Model) {
    problems.push(`${where}: no schema for ${o.apiVersion} ${o.kind}`);
    continue;
  }
  try {
    new Model(o).validate();
  } catch (err) {
    problems.push(`${where}: ${err.message}`);
  }
}
if (values.json) console.log(JSON.stringify({ objects, problems }));
else {
  for (const o of objects) console.log(`${o.apiVersion} ${o.kind} ${o.metadata?.name}`);
  console.log(problems.length ? problems.join("\n") : `${objects.length} objects, all valid`);
}
if (problems.length) process.exit(1);

if (values.smoke) {
  const sts = objects.find((o) => o.kind === "StatefulSet");
  const pod = structuredClone(sts.spec.template);
  const name = `${sts.metadata.name}-0`;
  const claims = sts.spec.volumeClaimTemplates.map((t) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: `${t.metadata.name}-${name}` },
    spec: t.spec,
  }));
  pod.spec.volumes.push(...sts.spec.volumeClaimTemplates.map((t) => ({ name: t.metadata.name, persistentVolumeClaim: { claimName: `${t.metadata.name}-${name}` } })));
  // podman 4.3 has no projected volumes (kube play panics on one): the smoke pod mounts the one login
  // Secret the ordinal's init container copies, at the same path.
  for (const v of pod.spec.volumes)
    if (v.projected) {
      const own = v.projected.sources.map((x) => x.secret).find((x) => x.items?.[0]?.path.startsWith(`${name}/`));
      delete v.projected;
      // … and podman makes no directories for an item's path: the ordinal's dir is the mount point.
      v.secret = { secretName: own.name, optional: true, items: own.items.map((i) => ({ ...i, path: i.path.slice(name.length + 1) })) };
      for (const c of pod.spec.initContainers)
        for (const m of c.volumeMounts ?? []) if (m.name === v.name) m.mountPath = `${m.mountPath}/${name}`;
    }
  // podman 4.3's kube play has no working Secret source (a secret volume or secretKeyRef dereferences a nil
  // secrets manager and panics): the smoke pod reads each Secret's data from a ConfigMap of the same name,
  // at the same paths and keys.
  for (const v of pod.spec.volumes)
    if (v.secret) {
      const { secretName, ...rest } = v.secret;
      delete v.secret;
      v.configMap = { name: secretName, ...rest };
    }
  for (const c of [...pod.spec.initContainers, ...pod.spec.containers])
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) e.valueFrom = { configMapKeyRef: e.valueFrom.secretKeyRef };
  const asConfigMaps = objects
    .filter((o) => o.kind === "Secret")
    .map((o) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: o.metadata.name },
      data: Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")])),
    }));
  // podman 4.3 removes a "once" init container right after starting it and fails when it has not exited
  // yet: run it as an "always" init container (every start of the pod) instead.
  pod.metadata.annotations = { ...pod.metadata.annotations, "io.podman.annotations.init.container.type": "always" };
  // A user namespace for the pod (hostUsers: false) needs subordinate id ranges podman would take from
  // /etc/subuid; the smoke pod runs in the host's (podman 4.3 ignores procMount either way).
  delete pod.spec.hostUsers;
  pod.spec.hostname = name;
  pod.spec.hostAliases = [{ ip: "127.0.0.1", hostnames: ["board-host"] }];
  for (const c of [...pod.spec.initContainers, ...pod.spec.containers]) {
    c.imagePullPolicy = "Never";
    delete c.ports; // podman publishes a containerPort on the host, which a pod with no network cannot
  }
  pod.spec.containers.push({ name: "board-host", image: values["board-image"], imagePullPolicy: "Never", securityContext: { runAsUser: 0, runAsNonRoot: false } });
  const out = [
    // podman with no network writes no /etc/hosts (hostAliases are dropped): the seat reaches the board
    // sidecar at 127.0.0.1, its host key still checked under the name board-host.
    ...objects
      .filter((o) => o.kind === "ConfigMap")
      .map((o) => ({
        ...o,
        data: Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, v.replaceAll("hermes@board-host", "-o HostKeyAlias=board-host hermes@127.0.0.1")])),
      })),
    ...asConfigMaps,
    ...claims,
    { apiVersion: "v1", kind: "Pod", metadata: { ...pod.metadata, name }, spec: pod.spec },
  ];
  writeFileSync(values.smoke, out.map((o) => stringify(o)).join("---\n"));
}
