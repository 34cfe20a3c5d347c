import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import * as der from '../../certs/der.js';

const hex = (bytes: Buffer) => bytes.toString('hex');

describe('certs: DER', () => {
  it('writes short and long lengths', () => {
    expect(hex(der.octetString(Buffer.alloc(3)))).to.equal('0403000000');
    expect(hex(der.octetString(Buffer.alloc(200))).slice(0, 6)).to.equal('0481c8');
    expect(hex(der.octetString(Buffer.alloc(300))).slice(0, 8)).to.equal('0482012c');
  });

  it('writes object identifiers in base 128', () => {
    // 1.2.840.10045.4.3.2, ecdsa-with-SHA256, as openssl writes it.
    expect(hex(der.objectIdentifier('1.2.840.10045.4.3.2'))).to.equal('06082a8648ce3d040302');
    expect(hex(der.objectIdentifier('2.5.4.3'))).to.equal('0603550403');
  });

  it('writes non-negative integers in their fewest bytes, with a zero before a set top bit', () => {
    expect(hex(der.unsignedInteger(Buffer.from([2])))).to.equal('020102');
    expect(hex(der.unsignedInteger(Buffer.from([0, 0, 0x7f])))).to.equal('02017f');
    expect(hex(der.unsignedInteger(Buffer.from([0x80])))).to.equal('02020080');
    expect(hex(der.unsignedInteger(Buffer.from([0])))).to.equal('020100');
  });

  it('writes UTCTime through 2049 and GeneralizedTime from 2050, in whole seconds', () => {
    expect(der.time(new Date('2049-12-31T23:59:59.999Z')).toString('latin1', 2)).to.equal('491231235959Z');
    expect(der.time(new Date('2049-12-31T23:59:59Z'))[0]).to.equal(0x17);
    const generalized = der.time(new Date('2050-01-01T00:00:00Z'));
    expect(generalized[0]).to.equal(0x18);
    expect(generalized.toString('latin1', 2)).to.equal('20500101000000Z');
  });

  it("reads the public key's bits out of a SubjectPublicKeyInfo", () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    const point = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const bits = der.subjectPublicKeyBits(spki);
    expect(bits).to.have.length(65);
    expect(bits[0], 'an uncompressed point').to.equal(4);
    expect(hex(bits.subarray(1, 33))).to.equal(hex(point));
    expect(() => der.subjectPublicKeyBits(der.sequence(der.sequence(), der.NULL))).to.throw(/BIT STRING/);
  });
});
