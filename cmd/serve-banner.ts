/**
 * What `paddock serve` prints once it is up: where everything is and what to do next, in one
 * short block a user can copy commands from. Paths are shown relative to the working directory
 * when they are under it (as the README's commands use them), absolute otherwise.
 */
import path from 'node:path';
import type { RequestLogMode } from '../gateway/observability/request-log.js';

export interface ServeBannerFacts {
  gatewayUrl: string;
  adminKubeconfig: string;
  dataDir: string;
  /** Each member cluster: its name, its kubeconfig file, and its URL when Paddock runs it. */
  clusters: { name: string; kubeconfig: string; url?: string }[];
  requestLog: RequestLogMode;
  /** `--audit-log-path`, when given: shown only then. */
  auditLog?: string;
  /** Started by `serve --background`: stopped with `paddock stop`, not Ctrl-C. */
  background: boolean;
}

/** `file` as a command line should name it: relative to the working directory when under it. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

export function serveBanner(facts: ServeBannerFacts): string {
  const dataDir = shownPath(facts.dataDir);
  const dataDirFlag = dataDir === '.paddock' ? '' : ` --data-dir ${dataDir}`;
  const tenantKubeconfig = path.join(dataDir, 'foofoo.kubeconfig');
  const rows: [string, string][] = [
    ['admin kubeconfig', shownPath(facts.adminKubeconfig)],
    ...facts.clusters.map((c): [string, string] => [
      `cluster ${c.name}`,
      `${c.url ? `${c.url}, ` : ''}kubeconfig ${shownPath(c.kubeconfig)}`,
    ]),
    [
      'request log',
      facts.requestLog === 'off' ? 'off (--request-log line: one line per request)' : 'one line per request',
    ],
    ...(facts.auditLog ? [['audit log', shownPath(facts.auditLog)] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `Paddock is up: the gateway listens on ${facts.gatewayUrl}`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}   ${value}`),
    'Next: create a tenant and use kubectl as that tenant (its own discovery cache: KUBECACHEDIR):',
    `  npm run paddock -- tenant create foofoo${dataDirFlag}`,
    `  npm run --silent paddock -- tenant kubeconfig foofoo${dataDirFlag} > ${tenantKubeconfig}`,
    `  KUBECONFIG=${tenantKubeconfig} KUBECACHEDIR=${path.join(dataDir, 'kubectl-cache', 'foofoo')} kubectl get namespaces`,
    facts.background ? `Stop: npm run paddock -- stop${dataDirFlag}` : 'Stop: Ctrl-C',
    '',
  ].join('\n');
}
