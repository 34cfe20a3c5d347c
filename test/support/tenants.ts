import { writeFile } from 'node:fs/promises';
import type { RestClient } from '../../apiserver/client/rest-client.js';

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
  const deadline = Date.now() + 10_000;
  for (;;) {
    const tenant = (await admin.request('GET', `${TENANTS}/${id}`)).body;
    if (tenant?.status?.phase === 'Active') {
      const kubeconfig = Buffer.from(
        tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'],
        'base64',
      ).toString('utf8');
      const kubeconfigPath = `${dir}/${id}.kubeconfig`;
      await writeFile(kubeconfigPath, kubeconfig);
      return { kubeconfigPath, kubeconfig };
    }
    if (Date.now() > deadline)
      throw new Error(`tenant ${id} not Active within 10 s: ${JSON.stringify(tenant?.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
