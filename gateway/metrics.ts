import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { processFaults } from '../apiserver/process-faults.js';

/**
 * The gateway's Prometheus metrics, on a registry of its own (several gateways can run in one
 * process in tests): requests by identity, tenant, verb and code; upstream latency; the time
 * spent translating requests (up) and responses (down).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'paddock_requests_total',
    help: 'Requests served, by identity kind, tenant, verb and HTTP code.',
    labelNames: ['identity', 'tenant', 'verb', 'code'] as const,
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: 'paddock_upstream_request_duration_seconds',
    help: 'Time until the upstream cluster answered a forwarded request (headers), by cluster and verb.',
    labelNames: ['cluster', 'verb'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly objectsRead = new Counter({
    name: 'paddock_upstream_objects_read_total',
    help: 'Objects (list items and Table rows) read from upstream lists, by cluster: what a list costs upstream.',
    labelNames: ['cluster'] as const,
    registers: [this.registry],
  });
  readonly watchEventsRead = new Counter({
    name: 'paddock_upstream_watch_events_total',
    help: 'Events read from upstream watches, by cluster, before the foreign ones are dropped: what a watch costs upstream.',
    labelNames: ['cluster'] as const,
    registers: [this.registry],
  });
  readonly translation = new Histogram({
    name: 'paddock_translation_duration_seconds',
    help: 'Time spent translating, by direction (up: request, down: response).',
    labelNames: ['direction'] as const,
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'paddock_' });
    this.registry.registerMetric(processFaults);
  }

  /** Awaits an upstream request, recording the time until its headers came under `verb`. */
  async upstream<T>(cluster: string, verb: string, request: () => Promise<T>): Promise<T> {
    const end = this.upstreamLatency.startTimer({ cluster, verb });
    try {
      return await request();
    } finally {
      end();
    }
  }

  /** Runs `fn`, recording its duration under `direction`. */
  time<T>(direction: 'up' | 'down', fn: () => T): T {
    const end = this.translation.startTimer({ direction });
    try {
      return fn();
    } finally {
      end();
    }
  }
}
