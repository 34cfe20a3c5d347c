import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { startRestClientServer } from '../support/rest-client-server.js';
import { eventually } from '../support/eventually.js';

/** More requests than the client keeps connections for: the rest wait for one. */
const CONNECTIONS = 64;

/** A server that holds every request it is sent until told to answer: requests pile up in the client. */
describe('REST client: a request aborted by its signal', function () {
  let stop: (() => Promise<void>) | undefined;
  let client: RestClient;
  const seen: string[] = [];
  const held: ServerResponse[] = [];

  before(async () => {
    ({ client, stop } = await startRestClientServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      held.push(res);
    }));
  });
  after(async () => {
    await stop?.();
  });
  beforeEach(() => {
    seen.length = 0;
    held.length = 0;
  });
  afterEach(() => {
    for (const res of held) res.end('{}');
  });

  it('rejects with an AbortError before sending when the signal is already aborted', async () => {
    const error = await client.request('GET', '/never', undefined, {}, AbortSignal.abort()).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error?.name).to.equal('AbortError');
    expect(seen).to.deep.equal([]);
  });

  it('rejects with an AbortError once aborted while the server holds the answer', async () => {
    const abort = new AbortController();
    const answer = client.request('GET', '/held', undefined, {}, abort.signal).then(
      () => undefined,
      (err: Error) => err,
    );
    await eventually(
      async () => seen,
      (urls) => expect(urls).to.include('/held'),
    );
    abort.abort();
    expect((await answer)?.name).to.equal('AbortError');
  });

  it('never sends one aborted while it waited for a connection', async () => {
    const holding = Array.from({ length: CONNECTIONS }, (_, i) =>
      client.request('GET', `/holding-${i}`).then(
        () => undefined,
        () => undefined,
      ),
    );
    await eventually(
      async () => seen.length,
      (count) => expect(count).to.equal(CONNECTIONS),
    );
    const abort = new AbortController();
    const queued = client.request('GET', '/queued', undefined, {}, abort.signal).then(
      () => undefined,
      (err: Error) => err,
    );
    abort.abort();
    // A connection comes free: the queued request would go out on it now.
    held.shift()!.end('{}');
    expect((await queued)?.name).to.equal('AbortError');
    for (const res of held.splice(0)) res.end('{}');
    await Promise.all(holding);
    expect(seen).to.not.include('/queued');
  });
});
