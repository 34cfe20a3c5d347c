/**
 * `--etcd-cafile`, `--etcd-certfile` and `--etcd-keyfile` (kube-apiserver's names), read into the
 * store's TLS options. Refused with a message that names the flag: a client certificate without
 * its key, TLS flags without etcd, or with an `http://` endpoint (gRPC would then speak TLS to a
 * plain port and report only that it could not connect).
 */
import { readFile } from 'node:fs/promises';
import type { EtcdTls } from '../store/index.js';

export interface EtcdTlsFlags {
  'etcd-cafile'?: string;
  'etcd-certfile'?: string;
  'etcd-keyfile'?: string;
}

export async function etcdTlsFromFlags(
  flags: EtcdTlsFlags,
  endpoints: readonly string[] | undefined,
): Promise<EtcdTls | undefined> {
  const { 'etcd-cafile': caFile, 'etcd-certfile': certFile, 'etcd-keyfile': keyFile } = flags;
  if (caFile === undefined && certFile === undefined && keyFile === undefined) return undefined;
  if (!endpoints?.length) throw new Error('--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-endpoints');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error('--etcd-certfile and --etcd-keyfile go together: a client certificate and its key');
  const plain = endpoints.find((endpoint) => !endpoint.startsWith('https://'));
  if (plain !== undefined)
    throw new Error(`--etcd-cafile, --etcd-certfile and --etcd-keyfile need https:// etcd endpoints; ${plain} is not`);
  const read = async (flag: string, file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return await readFile(file);
    } catch (err) {
      throw new Error(`--${flag}: cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  const [ca, cert, key] = await Promise.all([
    read('etcd-cafile', caFile),
    read('etcd-certfile', certFile),
    read('etcd-keyfile', keyFile),
  ]);
  return { ca, cert, key };
}
