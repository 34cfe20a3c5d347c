import { sendJson } from '../../apiserver/handlers/http-io.js';
import { apiVersionDown, TranslationError } from '../../translate/context.js';
import { STORED_BINDINGS_NAMESPACE } from '../../translate/kinds/stored-cluster-role-binding.js';
import { objectDown } from '../../translate/objects.js';
import { afterWrite, type WriteAnswer } from './after-write.js';
import { parseJson } from './answer-down.js';
import { pathWithQuery, type TenantRequest } from '../server/tenant-request.js';
import { sendUpstreamError } from '../upstream/upstream-failure.js';

/**
 * Delete-collection beyond one namespace would reach every tenant's objects upstream. As
 * kube-apiserver does, a cluster-wide delete of a namespaced kind is 405; for cluster-scoped
 * kinds the tenant's own matching objects are listed and deleted one by one.
 */
export async function deleteOwnCollection(r: TenantRequest): Promise<void> {
  const { req, res, ctx, t, upstream, headers, body } = r;
  if (t.namespaced) {
    throw new TranslationError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource (delete ${t.info.resource})`,
      { group: t.info.group, kind: t.info.resource },
    );
  }
  const query = new URLSearchParams();
  for (const key of ['labelSelector', 'fieldSelector']) {
    const value = t.query.get(key);
    if (value) query.set(key, value);
  }
  const listed = await r.upstreamRequest('list', 'GET', pathWithQuery(t.path, query), {
    ...headers,
    accept: 'application/json',
  });
  const listText = await listed.body.text();
  const list = parseJson(listText);
  if (listed.status !== 200 || !list)
    return sendUpstreamError(req, res, ctx, listed.status, listText, 'listing failed');
  const items: Record<string, any>[] = [];
  const answers: WriteAnswer[] = [];
  for (const item of list.items ?? []) {
    const own = objectDown(ctx, { apiVersion: list.apiVersion, kind: t.kind, ...item });
    if (!own) continue;
    // As kube's NamespaceLifecycle keeps kube-system: it holds the tenant's ClusterRoleBindings upstream.
    if (t.info.group === '' && t.info.resource === 'namespaces' && own.metadata?.name === STORED_BINDINGS_NAMESPACE)
      continue;
    const path = `${t.path}/${encodeURIComponent(item.metadata.name)}`;
    const deleted = await r.upstreamRequest(
      'delete',
      'DELETE',
      path,
      { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    );
    // As kube: the list holds each object as listed, whether its delete answered it or a Status.
    const text = await deleted.body.text();
    if (deleted.status < 300) {
      items.push(own);
      answers.push({ path, text });
    }
  }
  if (t.info.group === 'apiextensions.k8s.io') upstream.invalidate();
  await afterWrite(ctx, t, r.cluster, answers);
  sendJson(req, res, 200, {
    kind: `${t.kind}List`,
    apiVersion: apiVersionDown(ctx, String(list.apiVersion ?? 'v1')) ?? list.apiVersion,
    metadata: { resourceVersion: list.metadata?.resourceVersion },
    items,
  });
}
