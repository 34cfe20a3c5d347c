/**
 * healTenantSpaces against a cluster whose connection is reset: it fails with the reason, and
 * none of the writes it started (two tenants' at once, each with a grant per namespace) is left
 * to reject unawaited (the process reports such a rejection as a fault: apiserver/process-faults.ts).
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TenantSpaceView } from '../../tenants/tenant-space-informers.js';
import { adminBinding, healTenantSpaces } from '../../tenants/upstream-space.js';

describe('tenants: healing on a cluster that resets its connections', () => {
  it('rejects with the reason and leaves no rejection unawaited', async () => {
    const unawaited: unknown[] = [];
    const record = (reason: unknown) => unawaited.push(reason);
    process.on('unhandledRejection', record);
    try {
      const resetting = {
        // Every request fails a moment later, as a reset connection's do, each on its own.
        request: (_method: string, path: string) =>
          sleep(path.includes('clusterroles') && !path.includes('bindings') ? 1 : 5).then(() => {
            throw new Error(`read ECONNRESET (${path})`);
          }),
      };
      // Both tenants' spaces are there but their grants: healing writes a grant in each namespace.
      const view: TenantSpaceView = {
        hasClusterRole: () => true,
        clusterRoleBindingsOf: (tenantId) => [adminBinding(tenantId)],
        unstoredClusterRoleBindingsOf: () => [],
        namespacesOf: (tenantId) => [`${tenantId}-default`, `${tenantId}-kube-system`],
        grantsOf: () => new Map(),
        hasKubernetesService: () => true,
      };
      let failure: Error | undefined;
      await healTenantSpaces(resetting, view, ['alice1', 'bob222']).catch((err: Error) => (failure = err));
      expect(failure?.message).to.match(/^read ECONNRESET/);
      await sleep(50);
      expect(unawaited).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
