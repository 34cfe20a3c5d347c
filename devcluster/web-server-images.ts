/**
 * The web servers a simulated pod runs: a container whose image is nginx or Apache httpd listens
 * on the port that image's default configuration binds, whether or not its spec declares it, as
 * the real one does. Both the pods/services proxy and port-forward reach it there
 * (simulated-pod-http.ts answers for it).
 */

export type WebServerKind = 'nginx' | 'httpd';

export interface WebServer {
  kind: WebServerKind;
  port: number;
}

/** Image repository name (the last path segment, without tag or digest) → what it serves and where. */
const WEB_SERVER_IMAGES: Readonly<Record<string, WebServer>> = {
  nginx: { kind: 'nginx', port: 80 },
  'nginx-unprivileged': { kind: 'nginx', port: 8080 },
  httpd: { kind: 'httpd', port: 80 },
};

function repositoryName(image: string): string {
  const last = image.split('@')[0].split('/').pop() ?? '';
  return last.split(':')[0];
}

/** The web server one of the pod's containers runs on `port`, if any. */
export function webServerOn(pod: Record<string, any>, port: number): WebServer | null {
  for (const container of pod.spec?.containers ?? []) {
    const name = repositoryName(String(container.image ?? ''));
    const server = Object.hasOwn(WEB_SERVER_IMAGES, name) ? WEB_SERVER_IMAGES[name] : null;
    if (server?.port === port) return server;
  }
  return null;
}
