/**
 * deploy/haproxy.cfg with the tests' addresses: the lines between `# BEGIN paddock-bind` and
 * `# END paddock-bind` become one `bind`, those between `# BEGIN paddock-servers` and
 * `# END paddock-servers` one `server` line per gateway replica. Everything else (modes, checks,
 * timeouts) is the shipped file's, so a test runs what an operator deploys.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEPLOY } from './deploy-manifests.js';

export const HAPROXY_CONFIG = path.join(DEPLOY, 'haproxy.cfg');
/** Debian's haproxy (`apt-get install haproxy`). */
export const HAPROXY = '/usr/sbin/haproxy';

export interface HaproxyServer {
  /** The server's name in HAProxy (its stats and logs). */
  name: string;
  /** `host:port` of a gateway replica's --listen. */
  address: string;
}

export interface HaproxyConfigOptions {
  /** `host:port` HAProxy listens on. */
  bind: string;
  servers: readonly HaproxyServer[];
  /** Lines added to the `global` section (a stats socket, say). */
  global?: readonly string[];
}

export async function haproxyConfig(options: HaproxyConfigOptions): Promise<string> {
  return substituteHaproxyConfig(await readFile(HAPROXY_CONFIG, 'utf8'), options);
}

/** The substitution alone, on a config's text. Throws when a marked block is missing. */
export function substituteHaproxyConfig(text: string, options: HaproxyConfigOptions): string {
  let config = replaceBlock(text, 'paddock-bind', [`bind ${options.bind}`]);
  config = replaceBlock(
    config,
    'paddock-servers',
    options.servers.map((server) => `server ${server.name} ${server.address}`),
  );
  if (options.global?.length) {
    if (!/^global\n/m.test(config)) throw new Error('haproxy.cfg has no global section');
    config = config.replace(/^global\n/m, `global\n${options.global.map((line) => `    ${line}\n`).join('')}`);
  }
  return config;
}

function replaceBlock(text: string, marker: string, lines: readonly string[]): string {
  const block = new RegExp(`^([ \\t]*)# BEGIN ${marker}\\n[\\s\\S]*?^[ \\t]*# END ${marker}\\n`, 'm');
  const match = block.exec(text);
  if (!match) throw new Error(`haproxy.cfg has no "# BEGIN ${marker}" … "# END ${marker}" block`);
  const indent = match[1];
  const body = [`# BEGIN ${marker}`, ...lines, `# END ${marker}`].map((line) => `${indent}${line}\n`).join('');
  return text.slice(0, match.index) + body + text.slice(match.index + match[0].length);
}
