/**
 * The unit tier's rule, "pure, no processes", enforced: once installed, starting a process
 * (child_process) or listening or connecting on a socket (net, and so http, https, tls, undici)
 * throws, and the test during which it was tried fails, even when it caught the throw (a test
 * may expect a failed start). Installed in the process that runs a unit file, before the file
 * loads: builtins' ESM exports are re-synced, so `import { spawn } from 'node:child_process'`
 * gets the guarded function too.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import type Mocha from 'mocha';

const PROCESS_STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** What the guard stopped since the last check, for the root hooks to fail the test with. */
const refused: string[] = [];

function refuse(what: string): never {
  const message =
    `the unit tier is pure: this test ${what}. A test that starts processes or opens sockets is a ` +
    `stage, e2e or jobs test: name its file in test/tiers.ts (docs/engineering.md, "Tiers").`;
  refused.push(message);
  throw new Error(message);
}

/** The program or address a call was about, for the message. */
function target(args: unknown[]): string {
  const [first] = args;
  if (typeof first === 'string' || typeof first === 'number') return String(first);
  if (first && typeof first === 'object') {
    const { host, port, path } = first as { host?: string; port?: number | string; path?: string };
    return [host, port, path].filter((part) => part !== undefined).join(':');
  }
  return '';
}

/** Throws what the guard refused since the last check, and forgets it. */
function settle(): void {
  const messages = refused.splice(0);
  if (messages.length > 0) throw new Error(messages.join('\n'));
}

/** A test that failed fails with its own error; what the guard refused during it is forgotten. */
function forget(): void {
  refused.length = 0;
}

const wrapped = new WeakSet<Mocha.Runnable>();

/**
 * Before each test, wraps its function so that the test itself fails when the guard refused
 * something while it ran, though it caught the throw. (A failing root hook would be shorter, but
 * mocha skips every test left in the process after one, the other files of a batch included.)
 */
function guardTest(this: Mocha.Context): void {
  const test = this.currentTest;
  if (!test?.fn || wrapped.has(test)) return;
  wrapped.add(test);
  const original = test.fn as (this: Mocha.Context, done?: Mocha.Done) => unknown;
  test.fn = test.async
    ? function (this: Mocha.Context, done: Mocha.Done) {
        try {
          original.call(this, (error?: unknown) => {
            if (error) {
              forget();
              return done(error);
            }
            try {
              settle();
            } catch (failure) {
              return done(failure);
            }
            done();
          });
        } catch (error) {
          forget();
          throw error;
        }
      }
    : function (this: Mocha.Context) {
        let result: unknown;
        try {
          result = original.call(this);
        } catch (error) {
          forget();
          throw error;
        }
        if (!(result instanceof Promise)) return settle();
        return result.then(settle, (error: unknown) => {
          forget();
          throw error;
        });
      };
}

/** What was refused outside any test (a hook that caught the throw) fails the run's last hook. */
function refusedOutsideTests(): void {
  settle();
}

/** Guards this process; answers the root hooks to give mocha. */
export function installUnitGuard(): Mocha.RootHookObject {
  const guarded = childProcess as unknown as Record<string, (...args: unknown[]) => never>;
  for (const name of PROCESS_STARTERS)
    guarded[name] = (...args: unknown[]) => refuse(`started a process (child_process.${name} ${target(args)})`);
  syncBuiltinESMExports();
  net.Server.prototype.listen = function (...args: unknown[]): never {
    return refuse(`listened on a socket (net.Server.listen ${target(args)})`);
  };
  net.Socket.prototype.connect = function (...args: unknown[]): never {
    return refuse(`connected a socket (net.Socket.connect ${target(args)})`);
  };
  return { beforeEach: guardTest, afterAll: refusedOutsideTests };
}
