import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RestClient, type RestResponse } from '../apiserver/client/rest-client.js';
import { humanDuration } from '../apiserver/table/duration.js';
import { CLUSTER_GROUP, CLUSTER_VERSION, clusterReadyStatus } from '../clusters/cluster-resource.js';
import {
  parseTaintToAdd,
  parseTaintToRemove,
  taintText,
  type TaintToAdd,
  type TaintToRemove,
} from '../clusters/taint-argument.js';
import type { ClusterTaint } from '../clusters/tolerations.js';
import { TENANT_GROUP, TENANT_VERSION } from '../tenants/tenant-resource.js';
import { CLUSTER_HELP, CLUSTER_VERBS, clusterVerbHelp } from './cli-commands.js';
import { parseVerb, printColumns, UsageError } from './cli-usage.js';

const CLUSTERS = `/apis/${CLUSTER_GROUP}/${CLUSTER_VERSION}/clusters`;
const TENANTS = `/apis/${TENANT_GROUP}/${TENANT_VERSION}/tenants`;
/** How many times a taint change is tried on a freshly read Cluster when another write got in between (409). */
const WRITE_ATTEMPTS = 5;

/** What `taint` or `untaint` makes of a cluster's taints; throws when the change cannot be made. */
type TaintEdit = (taints: readonly ClusterTaint[]) => ClusterTaint[];

/**
 * `paddock cluster list|taint|untaint`: the clusters tenants live on, and their taints, through
 * the gateway's admin API with the admin kubeconfig, as `kubectl taint` does for nodes.
 */
export async function clusterCommand(args: string[], out: (line: string) => void): Promise<number> {
  const parsed = parseVerb(
    { name: 'cluster', help: CLUSTER_HELP, verbs: CLUSTER_VERBS, verbHelp: clusterVerbHelp },
    args,
    out,
  );
  if (!parsed) return 0;
  const { verb, spec } = parsed;
  const values = parsed.values as Record<string, string | boolean | undefined> & { 'data-dir': string };
  const [name = '', argument = ''] = parsed.positionals;
  // A malformed taint is a usage error, told before anything is read or asked of the gateway.
  let edit: TaintEdit | undefined;
  if (verb === 'taint') edit = addTaint(name, usable(parseTaintToAdd(argument), spec.name), values.overwrite === true);
  if (verb === 'untaint') edit = removeTaints(usable(parseTaintToRemove(argument), spec.name));
  const kubeconfig = (values.kubeconfig as string | undefined) ?? path.join(values['data-dir'], 'admin.kubeconfig');
  const client = RestClient.fromKubeconfig(await readFile(kubeconfig, 'utf8'));
  try {
    if (!edit) return await list(client, out);
    await updateTaints(client, name, edit);
    out(`cluster/${name} ${verb === 'taint' ? 'tainted' : 'untainted'}`);
    return 0;
  } finally {
    client.close();
  }
}

function usable<T>(parsed: { taint: T } | { error: string }, command: string): T {
  if ('error' in parsed) throw new UsageError(parsed.error, command);
  return parsed.taint;
}

async function list(client: RestClient, out: (line: string) => void): Promise<number> {
  const [clusters, tenants] = await Promise.all([client.request('GET', CLUSTERS), client.request('GET', TENANTS)]);
  const tenantsOn = new Map<string, number>();
  for (const tenant of check(tenants, 200).body.items as any[]) {
    const cluster = tenant.status?.cluster;
    if (cluster) tenantsOn.set(cluster, (tenantsOn.get(cluster) ?? 0) + 1);
  }
  const items = (check(clusters, 200).body.items as any[]).sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
  const rows = [
    ['NAME', 'VERSION', 'READY', 'TAINTS', 'TENANTS', 'AGE'],
    ...items.map((c) => [
      c.metadata.name,
      c.status?.kubernetesVersion ?? '',
      clusterReadyStatus(c),
      ((c.spec?.taints ?? []) as ClusterTaint[]).map(taintText).join(',') || '<none>',
      String(tenantsOn.get(c.metadata.name) ?? 0),
      humanDuration(Date.now() - Date.parse(c.metadata.creationTimestamp)),
    ]),
  ];
  printColumns(rows, out);
  return 0;
}

/**
 * kubectl taint's add: the taint goes in stamped with timeAdded now (as Karmada's mutating webhook
 * stamps it: the taint manager counts tolerationSeconds from it); one with the same key and effect
 * is replaced, in its place, only with --overwrite.
 */
function addTaint(cluster: string, taint: TaintToAdd, overwrite: boolean): TaintEdit {
  return (taints) => {
    const added: ClusterTaint = { ...taint, timeAdded: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
    const same = taints.findIndex((t) => t.key === taint.key && t.effect === taint.effect);
    if (same < 0) return [...taints, added];
    if (!overwrite)
      throw new Error(
        `cluster ${cluster} already has ${taint.key} taint(s) with same effect(s) and --overwrite is false`,
      );
    return taints.map((t, i) => (i === same ? added : t));
  };
}

/** kubectl taint's `KEY[:EFFECT]-`: every taint with the key (and effect); none is an error. */
function removeTaints(taint: TaintToRemove): TaintEdit {
  return (taints) => {
    const kept = taints.filter((t) => t.key !== taint.key || (taint.effect !== undefined && t.effect !== taint.effect));
    if (kept.length === taints.length) throw new Error(`taint ${JSON.stringify(taintText(taint))} not found`);
    return kept;
  };
}

/**
 * Read, change, write back with the resourceVersion read (an update, not a merge patch): a merge
 * patch replaces `spec.taints` whole, so a taint the cluster status controller added or removed
 * between our read and our write would be silently undone. With the resourceVersion that race is a
 * 409, and the change is made again on the cluster as it now is.
 */
async function updateTaints(client: RestClient, name: string, edit: TaintEdit): Promise<void> {
  const url = `${CLUSTERS}/${encodeURIComponent(name)}`;
  for (let attempt = 1; ; attempt++) {
    const cluster = check(await client.request('GET', url), 200).body;
    const taints = edit(cluster.spec.taints ?? []);
    if (taints.length) cluster.spec.taints = taints;
    else delete cluster.spec.taints;
    const written = await client.request('PUT', url, cluster);
    if (written.status === 409 && attempt < WRITE_ATTEMPTS) continue;
    check(written, 200);
    return;
  }
}

function check(res: RestResponse, ...ok: number[]): RestResponse {
  if (ok.includes(res.status)) return res;
  throw new Error(res.body?.message ?? `the gateway answered ${res.status}`);
}
