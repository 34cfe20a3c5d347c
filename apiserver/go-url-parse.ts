/**
 * Go's `net/url.Parse`, as far as validation reads it: the scheme and host it finds, or its error
 * in Go's words (`parse "<url>": <reason>`), which kube-style validators put in field errors. WHATWG's
 * URL parser accepts and refuses different strings, so it cannot stand in.
 */
import { goQuote } from './go-quote.js';

export type GoUrl = { scheme: string; host: string } | { error: string };

export function goUrlParse(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const withoutFragment = hash < 0 ? raw : raw.slice(0, hash);
  try {
    const url = parse(withoutFragment);
    if (hash >= 0) {
      try {
        unescape(raw.slice(hash + 1), 'fragment');
      } catch (err) {
        return { error: `parse ${goQuote(raw)}: ${(err as Error).message}` };
      }
    }
    return url;
  } catch (err) {
    return { error: `parse ${goQuote(withoutFragment)}: ${(err as Error).message}` };
  }
}

function parse(raw: string): { scheme: string; host: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '*') return { scheme: '', host: '' };
  const { scheme, rest: afterScheme } = splitScheme(raw);
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    // Opaque (`mailto:x`): no host.
    if (scheme) return { scheme, host: '' };
    if (rest.split('/')[0].includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    host = parseHost(authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[a-zA-Z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new Error('net/url: invalid userinfo');
      const colon = userinfo.indexOf(':');
      for (const part of colon < 0 ? [userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)])
        unescape(part, 'userinfo');
    }
  }
  unescape(rest, 'path');
  return { scheme, host };
}

/** getScheme: letters, then letters, digits, `+`, `-` or `.`, up to a colon; anything else means no scheme. */
function splitScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return { scheme: raw.slice(0, i).toLowerCase(), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function parseHost(host: string): string {
  let colonPort = '';
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new Error("missing ']' in host");
    colonPort = host.slice(close + 1);
  } else if (host.includes(':')) {
    colonPort = host.slice(host.lastIndexOf(':'));
  }
  if (colonPort && !/^:[0-9]*$/.test(colonPort)) throw new Error(`invalid port ${goQuote(colonPort)} after host`);
  return unescape(host, 'host');
}

/** Characters a host may hold unescaped besides letters, digits and `-._~` (shouldEscape, encodeHost). */
const HOST_SUB_DELIMS = '!$&\'()*+,;=:[]<>"';

function unescape(text: string, mode: 'host' | 'path' | 'userinfo' | 'fragment'): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '%') {
      const escape = text.slice(i, i + 3);
      if (!/^%[0-9a-fA-F]{2}$/.test(escape)) throw new Error(`invalid URL escape ${goQuote(escape)}`);
      if (mode === 'host' && parseInt(escape[1], 16) < 8 && escape !== '%25')
        throw new Error(`invalid URL escape ${goQuote(escape)}`);
      out += String.fromCharCode(parseInt(escape.slice(1), 16));
      i += 2;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !/[a-zA-Z0-9\-._~]/.test(c) && !HOST_SUB_DELIMS.includes(c))
      throw new Error(`invalid character ${goQuote(c)} in host name`);
    out += c;
  }
  return out;
}
