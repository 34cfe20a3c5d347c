import { expect } from 'chai';
import { tenantContext, TranslationError } from '../../translate/context.js';
import { assertUnderPrefix } from '../../translate/prefix-check.js';
import { requestUp } from '../../translate/request.js';
import { kindScope } from '../support/kind-scope.js';

const ctx = tenantContext('aaaaaa', kindScope());

/** A request as the conversion makes it, then (to stand for a gap in the conversion) pointed elsewhere upstream. */
function translated(path: string, upstreamPath?: string) {
  const t = requestUp(ctx, 'GET', path, new URLSearchParams())!;
  return upstreamPath === undefined ? t : { ...t, path: upstreamPath };
}

describe('translate: the prefix check before the gateway sends as itself', () => {
  it('passes what the conversion makes: namespaced, cluster-scoped, custom, shared, collections', () => {
    for (const path of [
      '/api/v1/namespaces/default/secrets/x',
      '/api/v1/namespaces/default',
      '/api/v1/namespaces',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/view',
      '/api/v1/nodes/node-1',
      '/api/v1/persistentvolumes/pv/status',
    ]) {
      expect(() => assertUnderPrefix(ctx, translated(path)), path).not.to.throw();
    }
  });

  it('refuses a namespace or a cluster-scoped name without the tenant prefix, as a conversion gap would leave it', () => {
    const cases: [string, string][] = [
      ['/api/v1/namespaces/default/secrets/x', '/api/v1/namespaces/bbbbbb-default/secrets/x'],
      ['/api/v1/namespaces/default/secrets/x', '/api/v1/namespaces/default/secrets/x'],
      ['/api/v1/namespaces/default', '/api/v1/namespaces/bbbbbb-default'],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles/view', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view'],
      ['/api/v1/persistentvolumes/pv/status', '/api/v1/persistentvolumes/bbbbbb-pv/status'],
    ];
    for (const [path, upstream] of cases) {
      expect(() => assertUnderPrefix(ctx, translated(path, upstream)), upstream).to.throw(
        TranslationError,
        "not under the tenant's prefix",
      );
    }
  });
});
