/**
 * The gateway's serving certificate, issued by its CA for every name it is reached by (the
 * advertised and listen addresses, the in-cluster names, each cluster's advertised Service's
 * ClusterIP: kube-apiserver's names the `kubernetes` Service's IP the same way), and issued again
 * when those names change, the server taking it for new connections (`setSecureContext`).
 */
import type { Server } from 'node:https';
import type { CertificateAuthority } from '../../certs/index.js';
import { logger } from '../../log/log.js';

const log = logger('serving certificate');

export class ServingCertificate {
  private served: string[] = [];
  private server: Server | undefined;
  /** One issue at a time, each for the names of its moment. */
  private issuing = Promise.resolve();

  constructor(
    private readonly ca: CertificateAuthority,
    private readonly trustedCas: string[],
    /** The names to serve now, in a stable order. */
    private readonly names: () => string[],
  ) {}

  /** The key and certificate to start the server with. */
  async first(): Promise<{ key: string; cert: string }> {
    this.served = this.names();
    const issued = await this.ca.issueServingCertificate({ hosts: this.served });
    return { key: issued.keyPem, cert: issued.certPem };
  }

  /** The server that serves it, from now on given each new one. */
  serve(server: Server): void {
    this.server = server;
    this.namesChanged();
  }

  /** Issues it again if the names are not those served. */
  namesChanged(): void {
    this.issuing = this.issuing.then(async () => {
      // Before the server, first() issues for the names of then.
      if (!this.server) return;
      const names = this.names();
      if (names.join() === this.served.join()) return;
      try {
        const issued = await this.ca.issueServingCertificate({ hosts: names });
        this.server.setSecureContext({ key: issued.keyPem, cert: issued.certPem, ca: this.trustedCas });
        this.served = names;
      } catch (err) {
        log.error('issuing the serving certificate failed', { names, error: err });
      }
    });
  }
}
