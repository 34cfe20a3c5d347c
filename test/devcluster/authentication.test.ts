import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { authenticateRequest } from '../../devcluster/authentication.js';
import type { ServiceAccountTokens } from '../../devcluster/service-account-tokens.js';

/** A verified TLS connection whose certificate says `subject`, counting how often it is read. */
function connection(subject: Record<string, string> | undefined) {
  const socket = {
    authorized: true,
    reads: 0,
    getPeerCertificate(): PeerCertificate {
      socket.reads++;
      return (subject ? { subject, serialNumber: '01' } : {}) as unknown as PeerCertificate;
    },
  };
  return socket;
}

function request(socket: ReturnType<typeof connection>, authorization?: string): IncomingMessage {
  return {
    socket: socket as unknown as TLSSocket,
    headers: authorization ? { authorization } : {},
  } as unknown as IncomingMessage;
}

const noServiceAccounts = { verify: () => undefined } as unknown as ServiceAccountTokens;

describe('devcluster authentication', () => {
  it("reads a connection's certificate once for all its requests", () => {
    const socket = connection({ CN: 'alice', O: 'team' });
    for (let i = 0; i < 3; i++)
      expect(authenticateRequest(request(socket), new Map(), noServiceAccounts)).to.deep.equal({
        name: 'alice',
        groups: ['team', 'system:authenticated'],
      });
    expect(socket.reads).to.equal(1);
  });

  it('falls back to the bearer token on every request of a connection whose certificate names no one', () => {
    const socket = connection(undefined);
    const tokens = new Map([['t0k', { name: 'bob', groups: [] }]]);
    expect(authenticateRequest(request(socket), tokens, noServiceAccounts)).to.equal(null);
    expect(authenticateRequest(request(socket, 'Bearer t0k'), tokens, noServiceAccounts)).to.deep.equal({
      name: 'bob',
      groups: ['system:authenticated'],
    });
    expect(socket.reads).to.equal(1);
  });

  it('keeps apart the users of two connections', () => {
    const alice = connection({ CN: 'alice' });
    const carol = connection({ CN: 'carol' });
    expect(authenticateRequest(request(alice), new Map(), noServiceAccounts)?.name).to.equal('alice');
    expect(authenticateRequest(request(carol), new Map(), noServiceAccounts)?.name).to.equal('carol');
    expect(authenticateRequest(request(alice), new Map(), noServiceAccounts)?.name).to.equal('alice');
  });
});
