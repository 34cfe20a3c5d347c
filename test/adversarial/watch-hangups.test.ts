/**
 * A tenant that hangs up while the gateway is still setting its watch up. Every upstream request
 * a watch's set-up makes is held in turn (the devcluster's `beforeRequest` hook) while the client
 * hangs up; then it is let go. A 'close' listener added after the hang-up never runs, and a
 * listener that reads what an `await` has not assigned yet throws where nothing catches it: so
 * each time, every upstream request of that set-up must end (no watch left open upstream, nor
 * held against the tenant's bounds), no fault may escape, and the gateway must go on serving.
 */
import { expect } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { processFaults } from '../../apiserver/process-faults.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { startStage, type Stage } from '../support/stage.js';

const TENANT = 'hangup';
/** Long enough for the gateway to read the hang-up from loopback before the held request goes on. */
const HANG_UP_SETTLES_MS = 200;

interface Plan {
  /** Which set-up request to hold (in order of arrival), or -1 to hold none. */
  hold: number;
  seen: number;
  held?: () => void;
  release?: () => void;
}

/** A request of a tenant watch's set-up: a watch of pods, or the list of the tenant's namespaces (while the gateway's namespace index is not in). */
function isSetupRequest(req: IncomingMessage): boolean {
  const url = new URL(req.url ?? '/', 'https://upstream');
  if (url.pathname.endsWith('/pods')) return url.searchParams.has('watch');
  return (
    url.pathname === '/api/v1/namespaces' && url.searchParams.get('labelSelector') === `kubezoo.io/tenant=${TENANT}`
  );
}

async function faultCount(): Promise<number> {
  return (await processFaults.get()).values.reduce((sum, value) => sum + value.value, 0);
}

describe('adversarial: hanging up during a watch set-up', function () {
  this.timeout(180_000);
  let stage: Stage;
  let tenant: ApiClient;
  let plan: Plan | undefined;
  /** The set-up's upstream requests not yet closed. */
  const open = new Set<ServerResponse>();

  before(async () => {
    stage = await startStage('hangup', {
      devcluster: {
        beforeRequest: (req, res) => {
          if (!plan || !isSetupRequest(req)) return;
          open.add(res);
          res.on('close', () => open.delete(res));
          const current = plan;
          if (current.seen++ !== current.hold) return;
          return new Promise<void>((resolve) => {
            current.release = resolve;
            current.held?.();
          });
        },
      },
      // The forwarding watch's upstream set-up is what is hung up on here.
      gateway: { tenantCache: '' },
    });
    const created = await stage.tenant(TENANT);
    tenant = await ApiClient.load(created.kubeconfigPath);
    for (const name of ['a', 'b']) {
      const made = await tenant.request('POST', '/api/v1/namespaces', { metadata: { name } });
      expect(made.status, made.text).to.equal(201);
    }
  });

  after(async () => {
    plan?.release?.();
    tenant?.close();
    await stage?.stop();
  });

  /**
   * Opens the watch with nothing held and counts the upstream requests its set-up makes, once the
   * gateway's namespace index is in: until then a set-up also lists the tenant's namespaces, so
   * the count would change midway.
   */
  async function setupRequests(path: string): Promise<number> {
    await waitUntil('the namespace index is in', async () => {
      plan = { hold: -1, seen: 0 };
      expect((await tenant.request('GET', '/api/v1/pods')).status).to.equal(200);
      return plan.seen === 0;
    });
    plan = { hold: -1, seen: 0 };
    const watch = tenant.watch(path);
    await eventually(
      async () => watch.status,
      (status) => expect(status).to.equal(200),
    );
    // The watch of new namespaces is opened after the answer's head: wait until the count settles.
    let seen = -1;
    while (seen !== plan.seen) {
      seen = plan.seen;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    watch.close();
    await eventually(
      async () => open.size,
      (size) => expect(size, 'upstream requests left open by a watch closed normally').to.equal(0),
    );
    return seen;
  }

  for (const path of ['/api/v1/pods?watch=1', '/api/v1/namespaces/a/pods?watch=1']) {
    it(`closes every upstream request and keeps serving, at each await of ${path}`, async () => {
      const faultsBefore = await faultCount();
      const steps = await setupRequests(path);
      expect(steps, 'set-up requests seen').to.be.greaterThan(0);
      if (!path.includes('/namespaces/')) expect(steps, 'a feed per namespace').to.be.at.least(2);
      for (let hold = 0; hold < steps; hold++) {
        const current: Plan = { hold, seen: 0 };
        const held = new Promise<void>((resolve) => (current.held = resolve));
        plan = current;
        const watch = tenant.watch(path);
        await held;
        watch.close();
        await new Promise((resolve) => setTimeout(resolve, HANG_UP_SETTLES_MS));
        current.release!();
        await eventually(
          async () => open.size,
          (size) => expect(size, `upstream requests left open after a hang-up at set-up step ${hold}`).to.equal(0),
        );
        const served = await tenant.request('GET', '/api/v1/namespaces/a/pods');
        expect(served.status, served.text).to.equal(200);
      }
      plan = undefined;
      expect(await faultCount(), 'faults that escaped every handler').to.equal(faultsBefore);
    });
  }
});
