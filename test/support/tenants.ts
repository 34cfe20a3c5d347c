import { writeFile } from 'node:fs/promises';
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { waitUntil } from './eventually.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

/**
 * Creates a Tenant (with `spec` when given) through the gateway's admin API, waits until it is
 * Active, and writes its kubeconfig (from the annotation) to `<dir>/<id>.kubeconfig`.
 */
export async function createActiveTenant(
  admin: RestClient,
  id: string,
  dir: string,
  spec?: Record<string, unknown>,
): Promise<{ kubeconfigPath: string; kubeconfig: string }> {
  const created = await admin.request('POST', TENANTS, {
    apiVersion: 'tenant.kubezoo.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: id },
    ...(spec ? { spec } : {}),
  });
  if (created.status !== 201) throw new Error(`creating tenant ${id}: ${created.status} ${created.text}`);
  let tenant: any;
  await waitUntil(
    `tenant ${id} Active`,
    async () => (tenant = (await admin.request('GET', `${TENANTS}/${id}`)).body)?.status?.phase === 'Active',
    {
      timeout: 10_000,
      interval: 20,
      message: () => `tenant ${id} not Active within 10 s: ${JSON.stringify(tenant?.status)}`,
    },
  );
  const kubeconfig = Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString(
    'utf8',
  );
  const kubeconfigPath = `${dir}/${id}.kubeconfig`;
  await writeFile(kubeconfigPath, kubeconfig);
  return { kubeconfigPath, kubeconfig };
}
