/**
 * Content negotiation for responses: kubectl asks for a Table with
 * `application/json;as=Table;v=v1;g=meta.k8s.io` (v1beta1 as a fallback) and for plain JSON
 * otherwise. Protobuf responses are not offered: every client here also accepts JSON.
 */
export interface AcceptedType {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string | undefined): AcceptedType[] {
  return (header ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type.toLowerCase(), params };
    });
}

/** The Table version the client asks for first, or null when it wants the objects themselves. */
export function wantsTable(header: string | undefined): 'v1' | 'v1beta1' | null {
  for (const accepted of parseAccept(header)) {
    if (accepted.type !== 'application/json') continue;
    const { as, g, v } = accepted.params;
    if (as === 'Table' && g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) return v;
    if (as === undefined) return null;
  }
  return null;
}
