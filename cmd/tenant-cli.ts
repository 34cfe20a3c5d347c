import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { RestClient, type RestResponse } from '../apiserver/client/rest-client.js';
import { humanDuration } from '../apiserver/table/duration.js';
import { ROTATE_ANNOTATION, TENANT_GROUP, TENANT_VERSION } from '../tenants/tenant-resource.js';
import { KUBECONFIG_ANNOTATION } from '../tenants/tenant-kubeconfig.js';
import { TENANT_HELP, TENANT_VERBS, TIMEOUT_FLAG, tenantVerbHelp } from './cli-commands.js';
import { parseVerb, printColumns } from './cli-usage.js';

const TENANTS = `/apis/${TENANT_GROUP}/${TENANT_VERSION}/tenants`;

/**
 * `paddock tenant create|get|list|delete|kubeconfig|rotate [ID]`: tenant administration through
 * the gateway's admin API with the admin kubeconfig. Commands that start something long
 * (create, delete, rotate) wait for it, with the controller's progress on stderr; stdout holds
 * only the result (`tenant kubeconfig X > file` must leave a kubeconfig and nothing else).
 */
export async function tenantCommand(
  args: string[],
  out: (line: string) => void,
  progress: (line: string) => void,
): Promise<number> {
  const parsed = parseVerb(
    { name: 'tenant', help: TENANT_HELP, verbs: TENANT_VERBS, verbHelp: tenantVerbHelp },
    args,
    out,
  );
  if (!parsed) return 0;
  const { verb } = parsed;
  const values = parsed.values as Record<string, string | undefined> & { 'data-dir': string };
  const [id = ''] = parsed.positionals;
  const kubeconfig = values.kubeconfig ?? path.join(values['data-dir'], 'admin.kubeconfig');
  const client = RestClient.fromKubeconfig(await readFile(kubeconfig, 'utf8'));
  const deadline = Date.now() + Number(values.timeout ?? TIMEOUT_FLAG.default) * 1000;
  try {
    switch (verb as keyof typeof TENANT_VERBS) {
      case 'list':
        return await list(client, out);
      case 'create':
        return await create(client, id, values.cluster, deadline, out, progress);
      case 'get':
        return await get(client, id, values.output ?? 'yaml', out);
      case 'delete':
        return await remove(client, id, deadline, out, progress);
      case 'kubeconfig':
        return await kubeconfigOf(client, id, out);
      case 'rotate':
        return await rotate(client, id, deadline, out, progress);
    }
  } finally {
    client.close();
  }
}

async function create(
  client: RestClient,
  id: string,
  cluster: string | undefined,
  deadline: number,
  out: (line: string) => void,
  progress: (line: string) => void,
): Promise<number> {
  const spec = cluster ? { clusterAffinity: { clusterNames: [cluster] } } : {};
  check(
    await client.request('POST', TENANTS, {
      apiVersion: `${TENANT_GROUP}/${TENANT_VERSION}`,
      kind: 'Tenant',
      metadata: { name: id },
      spec,
    }),
    201,
  );
  const tenant = await waitFor(
    client,
    id,
    deadline,
    (t) => t?.status?.phase === 'Active' && t.metadata.annotations?.[KUBECONFIG_ANNOTATION],
    progress,
  );
  out(`tenant/${id} created (Active on ${tenant.status.cluster})`);
  return 0;
}

async function get(client: RestClient, id: string, output: string, out: (line: string) => void): Promise<number> {
  if (output !== 'yaml' && output !== 'json')
    throw new Error(`--output must be yaml or json, got ${JSON.stringify(output)}`);
  const tenant = check(await client.request('GET', `${TENANTS}/${id}`), 200).body;
  out(output === 'json' ? JSON.stringify(tenant, null, 2) : stringify(tenant).trimEnd());
  return 0;
}

async function list(client: RestClient, out: (line: string) => void): Promise<number> {
  const items: any[] = check(await client.request('GET', TENANTS), 200).body.items;
  const rows = [
    ['NAME', 'PHASE', 'CLUSTER', 'AGE'],
    ...items.map((t) => [
      t.metadata.name,
      t.status?.phase ?? '',
      t.status?.cluster ?? '',
      humanDuration(Date.now() - Date.parse(t.metadata.creationTimestamp)),
    ]),
  ];
  printColumns(rows, out);
  return 0;
}

async function remove(
  client: RestClient,
  id: string,
  deadline: number,
  out: (line: string) => void,
  progress: (line: string) => void,
): Promise<number> {
  check(await client.request('DELETE', `${TENANTS}/${id}`), 200);
  out(`tenant/${id} deleting`);
  await waitFor(client, id, deadline, (t) => t === null, progress);
  out(`tenant/${id} deleted`);
  return 0;
}

async function kubeconfigOf(client: RestClient, id: string, out: (line: string) => void): Promise<number> {
  const tenant = check(await client.request('GET', `${TENANTS}/${id}`), 200).body;
  const encoded = tenant.metadata.annotations?.[KUBECONFIG_ANNOTATION];
  if (!encoded) throw new Error(`tenant ${id} has no kubeconfig yet (phase ${tenant.status?.phase ?? 'unknown'})`);
  out(Buffer.from(encoded, 'base64').toString('utf8').trimEnd());
  return 0;
}

async function rotate(
  client: RestClient,
  id: string,
  deadline: number,
  out: (line: string) => void,
  progress: (line: string) => void,
): Promise<number> {
  const request = new Date().toISOString();
  check(
    await client.request(
      'PATCH',
      `${TENANTS}/${id}`,
      { metadata: { annotations: { [ROTATE_ANNOTATION]: request } } },
      { 'Content-Type': 'application/merge-patch+json' },
    ),
    200,
  );
  const tenant = await waitFor(client, id, deadline, (t) => t?.status?.rotation === request, progress);
  out(
    `tenant/${id} certificate rotated (serial ${tenant.status.certificateSerials.join(', ')}); the previous certificate is revoked`,
  );
  return 0;
}

/** Polls the tenant until `done`, printing each new progress message of its Ready condition. */
async function waitFor(
  client: RestClient,
  id: string,
  deadline: number,
  done: (tenant: any) => unknown,
  progress: (line: string) => void,
): Promise<any> {
  let lastMessage = '';
  for (;;) {
    const res = await client.request('GET', `${TENANTS}/${id}`);
    const tenant = res.status === 404 ? null : check(res, 200).body;
    if (done(tenant)) return tenant;
    const ready = tenant?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
    const message: string | undefined = ready?.status === 'False' ? ready.message : undefined;
    if (message && message !== lastMessage) progress(`  ${message}`);
    lastMessage = message ?? lastMessage;
    if (Date.now() > deadline)
      throw new Error(
        `tenant ${id}: timed out (phase ${tenant?.status?.phase ?? 'gone'}${message ? `: ${message}` : ''})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function check(res: RestResponse, ...ok: number[]): RestResponse {
  if (ok.includes(res.status)) return res;
  throw new Error(res.body?.message ?? `the gateway answered ${res.status}`);
}
