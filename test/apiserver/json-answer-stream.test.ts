/**
 * JsonAnswerStream with many writers at once (a list fanned out over clusters or namespaces
 * writes a piece per source as it arrives): writers that meet a full socket share one wait for
 * its drain, rather than each adding a 'close' listener to the response (node warns of a leak
 * past ten), and every piece arrives.
 */
import { expect } from 'chai';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonAnswerStream } from '../../apiserver/handlers/http-io.js';

const WRITERS = 20;
const PIECE = 64 * 1024;

describe('apiserver: a JSON answer written by many writers at once', function () {
  this.timeout(30_000);

  it('shares one drain among the writers: the response never holds more than one close listener of theirs', async () => {
    let listeners = 0;
    let baseline = 0;
    let written: Promise<void[]> | undefined;
    const server = http.createServer((req, res: ServerResponse) => {
      const answer = new JsonAnswerStream(req, res, 200);
      baseline = res.listenerCount('close');
      const count = () => (listeners = Math.max(listeners, res.listenerCount('close') - baseline));
      written = Promise.all(
        Array.from({ length: WRITERS }, async (_, i) => {
          const done = answer.write(String.fromCharCode(97 + i).repeat(PIECE));
          count();
          await done;
        }),
      ).then((all) => {
        answer.end();
        return all;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get({ port, host: '127.0.0.1', path: '/' }, (res) => {
            // Read only after a while: the writers meet a full socket meanwhile.
            res.pause();
            let text = '';
            res.setEncoding('latin1');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(text));
            setTimeout(() => res.resume(), 200);
          })
          .on('error', reject);
      });
      await written;
      expect(body.length).to.equal(WRITERS * PIECE);
      for (let i = 0; i < WRITERS; i++) expect(body).to.contain(String.fromCharCode(97 + i).repeat(PIECE));
      expect(listeners, 'close listeners the writers added at most').to.be.at.most(1);
    } finally {
      server.close();
    }
  });
});
