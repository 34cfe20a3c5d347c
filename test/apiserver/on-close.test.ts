import { expect } from 'chai';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { onClose } from '../../apiserver/handlers/http-io.js';

/** A response on a socket that never connects: its 'close' is emitted by the test. */
const response = () => new ServerResponse(new IncomingMessage(new Socket()));

describe('apiserver: onClose, what runs when a response’s connection closes', () => {
  it('runs each of 50 followers once when the response closes, through one close listener', () => {
    const res = response();
    const before = res.listenerCount('close');
    const ran: number[] = [];
    for (let i = 0; i < 50; i++) onClose(res, () => ran.push(i));
    expect(res.listenerCount('close') - before, "the response's own close listeners added").to.equal(1);
    res.emit('close');
    res.emit('close');
    expect(ran).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
  });

  it('does not run a follower removed before the close, and runs the same function following twice twice', () => {
    const res = response();
    const ran: string[] = [];
    const removed = onClose(res, () => ran.push('removed'));
    const twice = () => ran.push('twice');
    onClose(res, twice);
    onClose(res, twice);
    removed();
    res.emit('close');
    expect(ran).to.deep.equal(['twice', 'twice']);
  });

  it('runs a follower at once when the response has closed already', () => {
    const res = response();
    Object.defineProperty(res, 'closed', { value: true });
    let ran = 0;
    onClose(res, () => ran++);
    expect(ran).to.equal(1);
  });
});
