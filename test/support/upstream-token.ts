import { expect } from 'chai';
import type { RestResponse } from '../../apiserver/client/rest-client.js';

/**
 * A ServiceAccount's token as its cluster issues it to a pod there (the upstream API's own
 * audience): what a workload uses to act on the cluster past the gateway. A token a tenant gets
 * through the gateway is for the gateway's audience and is no credential upstream.
 */
export async function upstreamToken(
  upstreamAdmin: { request(method: string, path: string, body?: unknown): Promise<RestResponse> },
  namespace: string,
  name: string,
): Promise<string> {
  const minted = await upstreamAdmin.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {},
  });
  expect(minted.status, minted.text).to.equal(201);
  return minted.body.status.token as string;
}
