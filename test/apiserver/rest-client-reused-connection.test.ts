import { expect } from 'chai';
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { startRestClientServer } from '../support/rest-client-server.js';

/**
 * A server whose idle timeout closes a kept-alive connection just as the client sends its next
 * request on it: here, every second request on a connection is met by the connection's end instead of an answer.
 */
/** The connection a request was answered on is free again once its answer's end has been handled: a poll comes later. */
function idle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 10));
}

describe('REST client: a kept-alive connection the server closes as a request goes out', function () {
  let stop: (() => Promise<void>) | undefined;
  let client: RestClient;
  const seen: string[] = [];

  before(async () => {
    ({ client, stop } = await startRestClientServer((req, res) => {
      const socket = req.socket as typeof req.socket & { answered?: number };
      socket.answered = (socket.answered ?? 0) + 1;
      seen.push(`${req.method} ${socket.answered}`);
      if (socket.answered === 2) {
        socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ method: req.method })));
    }));
  });
  after(async () => {
    await stop?.();
  });
  beforeEach(() => {
    client.close();
    seen.length = 0;
  });

  it('sends a GET again on a new connection, and answers it', async () => {
    expect((await client.request('GET', '/first')).body).to.deep.equal({ method: 'GET' });
    await idle();
    const again = await client.request('GET', '/second');
    expect([again.status, again.body]).to.deep.equal([200, { method: 'GET' }]);
    expect(seen).to.deep.equal(['GET 1', 'GET 2', 'GET 1']);
  });

  it('does not send a POST again: its caller is told of the reset', async () => {
    await client.request('GET', '/first');
    await idle();
    const error = await client.request('POST', '/second', { kind: 'ConfigMap' }).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    );
    // undici's SocketError: the other side closed the connection.
    expect(error?.code).to.equal('UND_ERR_SOCKET');
    expect(seen).to.deep.equal(['GET 1', 'POST 2']);
  });
});
