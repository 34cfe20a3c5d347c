/**
 * What an authorizer is asked about one request, as kube-apiserver's `authorizer.Attributes`
 * carries it: who is asking, and either a resource request or a non-resource path.
 */

export interface UserInfo {
  name: string;
  /** Every group the user is in, `system:authenticated` included for authenticated users. */
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface Attributes {
  user: UserInfo;
  /** The API verb (`get`, `list`, `watch`, `create`, …) or, for a non-resource request, the lowercased HTTP method. */
  verb: string;
  /** resource requests */
  isResourceRequest: boolean;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  /** non-resource requests */
  path: string;
}

/** A request for a path outside the API (`/healthz`, `/version`, ...): only the verb and path count. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: false,
    namespace: '',
    apiGroup: '',
    resource: '',
    subresource: '',
    name: '',
    path,
  };
}
