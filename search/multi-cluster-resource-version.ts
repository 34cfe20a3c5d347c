/**
 * The resourceVersion of an answer that spans clusters, in karmada-search's format: base64url
 * (unpadded) of a JSON object from cluster name to that cluster's resourceVersion, its keys
 * sorted so that one state always reads as the same string (`{"cluster1":"1000"}` is
 * `eyJjbHVzdGVyMSI6IjEwMDAifQ`). `""` is no cluster; `"0"` asks every cluster for "any version"
 * and prints as `"0"` until a cluster is given a version other than "0". A token that does not
 * decode reads as no cluster, as Karmada ignores it; a cluster missing from it reads as `""`.
 */
import { decodeRawUrlJsonObject, encodeRawUrl } from './go-base64-json.js';

export class MultiClusterResourceVersion {
  private readonly versions = new Map<string, string>();
  private zero = false;

  static parse(text: string): MultiClusterResourceVersion {
    const parsed = new MultiClusterResourceVersion();
    if (text === '') return parsed;
    if (text === '0') {
      parsed.zero = true;
      return parsed;
    }
    const decoded = decodeRawUrlJsonObject(text) ?? {};
    // Go's decoder keeps the entries it can read into map[string]string and skips the others.
    for (const [cluster, version] of Object.entries(decoded))
      if (typeof version === 'string') parsed.versions.set(cluster, version);
    return parsed;
  }

  /** A copy with one cluster's version, as Get answers with. */
  static of(cluster: string, resourceVersion: string): MultiClusterResourceVersion {
    const single = new MultiClusterResourceVersion();
    single.set(cluster, resourceVersion);
    return single;
  }

  get isZero(): boolean {
    return this.zero;
  }

  set(cluster: string, resourceVersion: string): void {
    this.versions.set(cluster, resourceVersion);
    if (resourceVersion !== '0') this.zero = false;
  }

  /** The cluster's version: "0" while the whole is "0", "" when the cluster is not in it. */
  get(cluster: string): string {
    if (this.zero) return '0';
    return this.versions.get(cluster) ?? '';
  }

  has(cluster: string): boolean {
    return this.versions.has(cluster);
  }

  /** The clusters with a version, and their versions, by cluster name. */
  entries(): [string, string][] {
    return [...this.versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  clone(): MultiClusterResourceVersion {
    const copy = new MultiClusterResourceVersion();
    for (const [cluster, version] of this.versions) copy.versions.set(cluster, version);
    copy.zero = this.zero;
    return copy;
  }

  toString(): string {
    if (this.zero) return '0';
    if (this.versions.size === 0) return '';
    // Karmada writes the JSON by hand, unescaped: cluster names and resourceVersions need no escaping.
    const body = this.entries()
      .map(([cluster, version]) => `"${cluster}":"${version}"`)
      .join(',');
    return encodeRawUrl(`{${body}}`);
  }
}

/**
 * Karmada's RecoverClusterResourceVersion: the version an update sends to `cluster` — its entry
 * when `resourceVersion` is a multi-cluster one (what reads from the cache answered), else
 * `resourceVersion` unchanged (a cluster's own version, "0" or "").
 */
export function recoverClusterResourceVersion(resourceVersion: string, cluster: string): string {
  if (resourceVersion === '' || resourceVersion === '0' || decodeRawUrlJsonObject(resourceVersion) === undefined)
    return resourceVersion;
  return MultiClusterResourceVersion.parse(resourceVersion).get(cluster);
}
