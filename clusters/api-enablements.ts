import type { ClusterConnection } from './cluster-connection.js';

/** One group version a cluster serves and its resources (Karmada's APIEnablement). */
export interface ApiEnablement {
  groupVersion: string;
  resources: { name: string; kind: string }[];
}

/**
 * What a cluster serves, read from discovery as Karmada's getAPIEnablements does: every group
 * version of `/api` and `/apis` with its resources, subresources left out, resources sorted by
 * name and group versions by name. A group version that cannot be read is left out and the
 * result marked partial.
 */
export async function readApiEnablements(
  connection: ClusterConnection,
  timeoutMs: number,
): Promise<{ enablements: ApiEnablement[]; partial: boolean }> {
  const getJson = async (path: string): Promise<any> => {
    const res = await connection.request('GET', path, { accept: 'application/json' }, undefined, timeoutMs);
    const text = await res.body.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return JSON.parse(text);
  };
  const groupVersions: string[] = [];
  let partial = false;
  for (const [path, read] of [
    ['/api', (doc: any) => (doc.versions ?? []) as string[]],
    [
      '/apis',
      (doc: any) => (doc.groups ?? []).flatMap((g: any) => (g.versions ?? []).map((v: any) => String(v.groupVersion))),
    ],
  ] as const) {
    try {
      groupVersions.push(...read(await getJson(path)));
    } catch {
      partial = true;
    }
  }
  const enablements = await Promise.all(
    groupVersions.map(async (groupVersion): Promise<ApiEnablement | undefined> => {
      try {
        const list = await getJson(groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`);
        const resources = ((list.resources ?? []) as { name: string; kind: string }[])
          .filter((r) => !r.name.includes('/'))
          .map((r) => ({ name: r.name, kind: r.kind }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        return { groupVersion, resources };
      } catch {
        partial = true;
        return undefined;
      }
    }),
  );
  return {
    enablements: enablements
      .filter((e): e is ApiEnablement => e !== undefined)
      .sort((a, b) => (a.groupVersion < b.groupVersion ? -1 : a.groupVersion > b.groupVersion ? 1 : 0)),
    partial,
  };
}
