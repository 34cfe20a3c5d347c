/**
 * What escapes every handler is reported and counted, and the process goes on: checked in a
 * child process of its own, since the handlers are process-wide (mocha has its own in this one).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { reportFault } from '../../apiserver/process-faults.js';
import { configureLog } from '../../log/log.js';

const moduleUrl = new URL('../../apiserver/process-faults.js', import.meta.url).href;

/** A server-like child: handlers installed, then a rejection nobody awaits, a throw in a listener, a detached failure. */
const CHILD = `
import { EventEmitter } from 'node:events';
import { detach, installFaultHandlers, processFaults } from ${JSON.stringify(moduleUrl)};
installFaultHandlers();
Promise.reject(new Error('nobody awaited this'));
const emitter = new EventEmitter();
emitter.on('close', () => { throw new ReferenceError('namespaceWatch is not defined'); });
setTimeout(() => emitter.emit('close'), 10);
detach(Promise.reject(new Error('a pump broke')), 'watch pump of tenant t1');
setTimeout(async () => {
  const counts = Object.fromEntries((await processFaults.get()).values.map((v) => [v.labels.kind, v.value]));
  process.stdout.write(JSON.stringify(counts));
}, 100);
`;

describe('process faults', () => {
  it('reports each escaped error with its context, counts it by kind, and keeps the process running', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD], {
      cwd: path.dirname(fileURLToPath(import.meta.url)),
    });
    expect(JSON.parse(stdout)).to.deep.equal({ unhandledRejection: 1, uncaughtException: 1, detached: 1 });
    const reports = stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; context: string; error: string; level: string });
    expect(reports.map((r) => r.kind).sort()).to.deep.equal(['detached', 'uncaughtException', 'unhandledRejection']);
    const byKind = Object.fromEntries(reports.map((r) => [r.kind, r]));
    expect(byKind.detached.context).to.equal('watch pump of tenant t1');
    expect(byKind.detached.error).to.contain('a pump broke');
    expect(byKind.uncaughtException.error).to.contain('ReferenceError: namespaceWatch is not defined');
    expect(byKind.unhandledRejection.error).to.contain('nobody awaited this');
    for (const report of reports) {
      expect(report.level).to.equal('error');
      expect(Object.keys(report), 'the line it always was in text mode').to.deep.equal([
        'level',
        'msg',
        'kind',
        'context',
        'error',
      ]);
    }
  });

  it('reports a fault as an entry like any other with --log-format json: ts, level, component, msg', () => {
    const lines: string[] = [];
    const restore = configureLog({ format: 'json', level: 'info', write: (line) => lines.push(line) });
    try {
      reportFault('detached', 'watch pump of tenant t1', new Error('a pump broke'));
    } finally {
      restore();
    }
    expect(lines).to.have.length(1);
    const entry = JSON.parse(lines[0]);
    expect(Object.keys(entry)).to.deep.equal(['ts', 'level', 'component', 'msg', 'kind', 'context', 'error']);
    expect(entry).to.deep.include({ level: 'error', component: 'process', msg: 'fault', kind: 'detached' });
    expect(entry.error).to.contain('Error: a pump broke');
  });
});
