import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './free-port.js';

const firstEphemeral = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('test support: freePort', () => {
  it('answers ports below the ephemeral range, where no outgoing connection takes them, that a server then binds', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).to.be.within(20_000, firstEphemeral - 1);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
