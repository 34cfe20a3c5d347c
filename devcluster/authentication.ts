import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { identityFromPeerCertificate } from '../certs/index.js';
import type { ServiceAccountClaims, ServiceAccountTokens } from './service-account-tokens.js';

export interface AuthenticatedUser {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** One line of a static token file, as kube-apiserver's --token-auth-file: `token,user,uid,"group1,group2"`. */
export async function readTokenFile(file: string): Promise<Map<string, AuthenticatedUser>> {
  const users = new Map<string, AuthenticatedUser>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const match = /^\s*([^,#\s]+)\s*,\s*([^,]+?)\s*,\s*([^,]*?)\s*(?:,\s*"?([^"]*)"?)?\s*$/.exec(line);
    if (!match) continue;
    const groups = (match[4] ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    users.set(match[1], { name: match[2], uid: match[3] || undefined, groups });
  }
  return users;
}

/**
 * A connection's certificate cannot change, so it is read once per socket: reading it
 * (`getPeerCertificate`) for every request was 8% of the devcluster's CPU while tenants were
 * created. null: the socket's certificate names no one (or there is none).
 */
const bySocket = new WeakMap<TLSSocket, AuthenticatedUser | null>();

function certificateUser(socket: TLSSocket): AuthenticatedUser | null {
  let user = bySocket.get(socket);
  if (user !== undefined) return user;
  try {
    const identity = identityFromPeerCertificate(socket.getPeerCertificate());
    user = { name: identity.user, groups: identity.groups };
  } catch {
    user = null;
  }
  bySocket.set(socket, user);
  return user;
}

/**
 * Who is asking, as kube-apiserver's authenticators decide it: a verified client certificate
 * (CN user, O groups), else a bearer token (the static token file, or a ServiceAccount token).
 * Every authenticated user is also in `system:authenticated`. Null when nothing checks out.
 */
export function authenticateRequest(
  req: IncomingMessage,
  tokens: Map<string, AuthenticatedUser>,
  serviceAccounts: ServiceAccountTokens,
): AuthenticatedUser | null {
  const socket = req.socket as TLSSocket;
  let user: AuthenticatedUser | null = null;
  const bearer = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
  if (socket.authorized) user = certificateUser(socket);
  if (!user && bearer) {
    user = tokens.get(bearer) ?? null;
    if (!user) {
      const claims = serviceAccounts.verify(bearer);
      if (claims) user = serviceAccountUser(claims);
    }
  }
  if (!user) return null;
  return { ...user, groups: [...new Set([...user.groups, 'system:authenticated'])] };
}

/**
 * The user a ServiceAccount token names, as kube's token authenticator makes it: the account's
 * groups, and in `extra` the token's id and, for a token bound to a pod, the pod.
 */
export function serviceAccountUser(claims: ServiceAccountClaims): AuthenticatedUser {
  const extra: Record<string, string[]> = {};
  if (claims.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
  if (claims.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [claims.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [claims.pod.uid];
  }
  return {
    name: `system:serviceaccount:${claims.namespace}:${claims.name}`,
    uid: claims.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${claims.namespace}`],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
