/** One reading of the gateway's own /metrics, read with its admin certificate. */
import { RestClient } from '../../apiserver/client/rest-client.js';
import type { BenchEnvironment } from './environment.js';

/** A metric's value by name and label set (`cluster="member1",verb="watch"`, '' for none); NaN when absent. */
export type MetricReading = (name: string, labels?: string) => number;

export async function readGatewayMetrics(
  env: Pick<BenchEnvironment, 'gatewayAdminKubeconfig'>,
): Promise<MetricReading> {
  const client = RestClient.fromKubeconfig(env.gatewayAdminKubeconfig);
  try {
    const res = await client.request('GET', '/metrics', undefined, { Accept: 'text/plain' });
    if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${res.text.slice(0, 300)}`);
    const lines = res.text.split('\n');
    return (name, labels = '') => {
      const head = labels ? `${name}{${labels}} ` : `${name} `;
      const line = lines.find((l) => l.startsWith(head));
      return line === undefined ? NaN : Number(line.slice(head.length));
    };
  } finally {
    client.close();
  }
}
