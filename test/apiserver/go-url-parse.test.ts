/**
 * goUrlParse against what Go's net/url.Parse answers: the scheme and host of good URLs, and the
 * error text of each way it refuses one (the texts are Go's, from net/url's sources).
 */
import { expect } from 'chai';
import { goUrlParse } from '../../apiserver/go-url-parse.js';

describe('apiserver: Go url.Parse (go-url-parse.ts)', () => {
  const parsed: [string, string, string][] = [
    ['https://localhost:9200', 'https', 'localhost:9200'],
    ['HTTP://Example.com/path?q=1#frag', 'http', 'Example.com'],
    ['http://user:p%40ss@host:80/', 'http', 'host:80'],
    ['http://[::1]:9200', 'http', '[::1]:9200'],
    ['localhost:9200', 'localhost', ''],
    ['mailto:someone@example.com', 'mailto', ''],
    ['/just/a/path', '', ''],
    ['//host.only/x', '', 'host.only'],
    ['http://', 'http', ''],
    ['', '', ''],
  ];
  for (const [raw, scheme, host] of parsed) {
    it(`${JSON.stringify(raw)} → scheme ${JSON.stringify(scheme)}, host ${JSON.stringify(host)}`, () => {
      expect(goUrlParse(raw)).to.deep.equal({ scheme, host });
    });
  }

  const refused: [string, string][] = [
    ['http://[::1', `parse "http://[::1": missing ']' in host`],
    ['http://host:port', 'parse "http://host:port": invalid port ":port" after host'],
    ['http://[::1]x', 'parse "http://[::1]x": invalid port "x" after host'],
    ['://host', 'parse "://host": missing protocol scheme'],
    ['1http://host', 'parse "1http://host": first path segment in URL cannot contain colon'],
    ['http://a b.com/', 'parse "http://a b.com/": invalid character " " in host name'],
    ['http://%41.com/', 'parse "http://%41.com/": invalid URL escape "%41"'],
    ['http://host/%zz', 'parse "http://host/%zz": invalid URL escape "%zz"'],
    ['http://host/%4', 'parse "http://host/%4": invalid URL escape "%4"'],
    ['http://host\x7f', 'parse "http://host\\x7f": net/url: invalid control character in URL'],
    ['http://us er@host/', 'parse "http://us er@host/": net/url: invalid userinfo'],
    ['http://host/#%zz', 'parse "http://host/#%zz": invalid URL escape "%zz"'],
  ];
  for (const [raw, error] of refused) {
    it(`${JSON.stringify(raw)} is refused: ${error}`, () => expect(goUrlParse(raw)).to.deep.equal({ error }));
  }
});
