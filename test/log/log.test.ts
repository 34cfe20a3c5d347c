/**
 * The operational log (log/log.ts): text mode writes the lines Paddock always wrote, json mode one
 * object a line with ts, level, component, msg and the entry's fields, and the level drops what
 * is below it. Captured through the settings' sink; each test puts the process's settings back.
 */
import { expect } from 'chai';
import { BARE_TEXT, commandMessage, configureLog, logger, type LogSettings } from '../../log/log.js';

function capture(settings: Partial<LogSettings> = {}): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const restore = configureLog({ format: 'text', level: 'info', ...settings, write: (line) => lines.push(line) });
  return { lines, restore };
}

describe('log: the operational log on stderr', () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("text mode writes today's lines: `<component>: <msg>`, `: <error>` after, or a body of the call's own", () => {
    const out = capture();
    restore = out.restore;
    const log = logger('tenant controller');
    log.warn('foofoo', { tenant: 'foofoo', error: 'the cluster refused' });
    log.warn('healing on member1', { cluster: 'member1', error: 'timeout' });
    log.error('leading failed', { error: 'boom' }, 'boom');
    logger('eviction').info('tenant foofoo: moved from member1 to member2 (3 of 3 objects replayed)', {
      to: 'member2',
    });
    logger('gateway', { text: BARE_TEXT }).error('gateway, routing: GET /x', { error: 'Error: x\n    at y' });
    expect(out.lines).to.deep.equal([
      'tenant controller: foofoo: the cluster refused\n',
      'tenant controller: healing on member1: timeout\n',
      'tenant controller: boom\n',
      'eviction: tenant foofoo: moved from member1 to member2 (3 of 3 objects replayed)\n',
      'gateway, routing: GET /x: Error: x\n    at y\n',
    ]);
  });

  it('json mode writes one object a line: ts, level, component, msg, then the fields (an Error as its stack)', () => {
    const out = capture({ format: 'json' });
    restore = out.restore;
    const before = Date.now();
    logger('cluster status controller').warn('member1', { cluster: 'member1', error: 'refused' }, 'ignored in json');
    const err = new Error('listener broke');
    logger('tenant roster').error('a change listener failed for foofoo', { tenant: 'foofoo', error: err });
    expect(out.lines).to.have.length(2);
    expect(out.lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).to.equal(true);
    const [first, second] = out.lines.map((line) => JSON.parse(line));
    expect(Object.keys(first)).to.deep.equal(['ts', 'level', 'component', 'msg', 'cluster', 'error']);
    expect(first).to.deep.include({
      level: 'warn',
      component: 'cluster status controller',
      msg: 'member1',
      cluster: 'member1',
      error: 'refused',
    });
    expect(first.ts).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(first.ts)).to.be.at.least(before - 1);
    expect(second).to.deep.include({ level: 'error', component: 'tenant roster', tenant: 'foofoo' });
    expect(second.error).to.equal(err.stack);
  });

  it('a field cannot pass itself off as ts, level, component or msg', () => {
    const out = capture({ format: 'json' });
    restore = out.restore;
    logger('eviction').info('moved', { level: 'error', msg: 'forged', component: 'x', ts: 'then', tenant: 'a' });
    expect(JSON.parse(out.lines[0])).to.deep.include({
      level: 'info',
      msg: 'moved',
      component: 'eviction',
      tenant: 'a',
    });
    expect(JSON.parse(out.lines[0]).ts).to.not.equal('then');
  });

  for (const format of ['text', 'json'] as const)
    it(`drops what is below the level (${format})`, () => {
      const levels = (level: LogSettings['level']) => {
        const out = capture({ format, level });
        const log = logger('c');
        log.error('e');
        log.warn('w');
        log.info('i');
        log.debug('d');
        out.restore();
        return out.lines.map((line) => (format === 'json' ? JSON.parse(line).msg : line.trim().slice('c: '.length)));
      };
      expect(levels('error')).to.deep.equal(['e']);
      expect(levels('warn')).to.deep.equal(['e', 'w']);
      expect(levels('info')).to.deep.equal(['e', 'w', 'i']);
      expect(levels('debug')).to.deep.equal(['e', 'w', 'i', 'd']);
    });

  it("a command's own messages: as written in text mode whatever the level, info entries in json mode", () => {
    const text = capture({ level: 'error' });
    commandMessage('paddock', 'SIGINT: stopping Paddock … ', { msg: 'stopping Paddock', fields: { signal: 'SIGINT' } });
    commandMessage('paddock', 'stopped\n', { msg: 'stopped Paddock' });
    text.restore();
    expect(text.lines.join('')).to.equal('SIGINT: stopping Paddock … stopped\n');

    const json = capture({ format: 'json' });
    commandMessage('paddock', 'SIGINT: stopping Paddock … ', { msg: 'stopping Paddock', fields: { signal: 'SIGINT' } });
    commandMessage('paddock', 'paddock: port taken\n', { msg: 'port taken', level: 'error' });
    json.restore();
    const entries = json.lines.map((line) => JSON.parse(line));
    expect(entries.map(({ level, component, msg, signal }) => ({ level, component, msg, signal }))).to.deep.equal([
      { level: 'info', component: 'paddock', msg: 'stopping Paddock', signal: 'SIGINT' },
      { level: 'error', component: 'paddock', msg: 'port taken', signal: undefined },
    ]);

    const quiet = capture({ format: 'json', level: 'warn' });
    commandMessage('paddock', 'stopped\n', { msg: 'stopped Paddock' });
    quiet.restore();
    expect(quiet.lines).to.deep.equal([]);
  });
});
