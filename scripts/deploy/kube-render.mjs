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
  pod.spec.hostname = name;
  pod.spec.hostAliases = [{ ip: "127.0.0.1", hostnames: ["board-host"] }];
  for (const c of [...pod.spec.initContainers, ...pod.spec.containers]) c.imagePullPolicy = "Never";
  pod.spec.containers.push({ name: "board-host", image: values["board-image"], imagePullPolicy: "Never", securityContext: { runAsUser: 0, runAsNonRoot: false } });
  const out = [
    ...objects.filter((o) => o.kind === "ConfigMap" || o.kind === "Secret"),
    ...claims,
    { apiVersion: "v1", kind: "Pod", metadata: { ...pod.metadata, name }, spec: pod.spec },
  ];
  writeFileSync(values.smoke, out.map((o) => stringify(o)).join("---\n"));
}
