import { expect } from 'chai';
import { Readable } from 'node:stream';
import { readAhead, StalledReader } from '../../clusters/read-ahead.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import { waitUntil } from '../support/eventually.js';

const KiB = 1024;

/** An upstream body of `size` bytes, pushed in 16 KiB chunks as fast as it is taken; records whether it was destroyed. */
function upstreamBody(size: number): { response: UpstreamResponse; destroyed: () => boolean; sent: () => number } {
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const n = Math.min(16 * KiB, size - sent);
      sent += n;
      this.push(Buffer.alloc(n, 'x'));
    },
  });
  return {
    response: { status: 200, headers: {}, body: Object.assign(body, { text: async () => '' }) },
    destroyed: () => body.destroyed,
    sent: () => sent,
  };
}

describe('gateway: read-ahead of upstream answers (a seat held only while the answer is on the connection)', () => {
  it('an answer within the read-ahead is read off the connection at once, though nothing reads it yet, and is whole when read', async () => {
    const upstream = upstreamBody(300 * KiB);
    let done = false;
    const answer = readAhead(upstream.response, () => (done = true), { bytes: 512 * KiB });
    await waitUntil('the answer read off the connection', () => done);
    expect(upstream.sent()).to.equal(300 * KiB);
    expect((await answer.body.text()).length).to.equal(300 * KiB);
  });

  it('an answer past the read-ahead holds its seat while its reader reads, and gives it back once read to its end', async () => {
    const upstream = upstreamBody(2048 * KiB);
    let done = false;
    const answer = readAhead(upstream.response, () => (done = true), { bytes: 256 * KiB });
    await waitUntil('the read-ahead full', () => upstream.sent() >= 256 * KiB);
    expect(done, 'a seat held while most of the answer is still upstream').to.equal(false);
    expect(upstream.sent()).to.be.below(2048 * KiB);
    let read = 0;
    for await (const chunk of answer.body) read += (chunk as Buffer).length;
    expect([read, done]).to.deep.equal([2048 * KiB, true]);
  });

  it('a full read-ahead its client leaves unread is cut after the allowance: the body fails with StalledReader and the seat is free', async () => {
    const upstream = upstreamBody(4096 * KiB);
    let done = false;
    const answer = readAhead(upstream.response, () => (done = true), { bytes: 64 * KiB, stalledAfterMs: 200 });
    await waitUntil('the answer cut', () => done);
    expect(upstream.destroyed(), 'the upstream side closed').to.equal(true);
    let failure: unknown;
    try {
      await answer.body.text();
    } catch (err) {
      failure = err;
    }
    expect(failure).to.be.instanceOf(StalledReader);
  });

  it('a reader that stops (its client hung up) closes the upstream side and frees the seat', async () => {
    const upstream = upstreamBody(4096 * KiB);
    let done = false;
    const answer = readAhead(upstream.response, () => (done = true), { bytes: 64 * KiB });
    for await (const chunk of answer.body) {
      expect((chunk as Buffer).length).to.be.greaterThan(0);
      break;
    }
    await waitUntil('the seat given back', () => done);
    expect(upstream.destroyed()).to.equal(true);
  });
});
