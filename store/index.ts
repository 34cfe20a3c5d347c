import { EmbeddedStore, type EmbeddedStoreOptions } from './embedded/embedded-store.js';
import type { EtcdTls } from './etcd/etcd-store.js';
import type { Store } from './types.js';

export * from './types.js';
export * from './errors.js';
export { EmbeddedStore } from './embedded/embedded-store.js';
// EtcdStore itself is imported from './etcd/etcd-store.js' where it is wanted: its etcd3 and gRPC
// modules take 0.3 s of CPU to load, which every process on the embedded store would pay.
export type { EtcdTls } from './etcd/etcd-store.js';
export { privateDataDir, writePrivateFile } from './private-files.js';

export interface OpenStoreOptions extends EmbeddedStoreOptions {
  /** When given, the store is etcd at these endpoints; otherwise the embedded store. */
  etcdEndpoints?: string[];
  etcdPrefix?: string;
  /** TLS to `https://` etcd endpoints. */
  etcdTls?: EtcdTls;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.etcdEndpoints?.length) {
    const { EtcdStore } = await import('./etcd/etcd-store.js');
    const store = new EtcdStore({ endpoints: options.etcdEndpoints, prefix: options.etcdPrefix, tls: options.etcdTls });
    try {
      await store.currentRevision();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
  return EmbeddedStore.open(options);
}
export { getOrCreate } from './get-or-create.js';
