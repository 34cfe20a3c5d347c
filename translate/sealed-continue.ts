import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { TranslationError } from './context.js';

/**
 * Continue tokens are sealed before a tenant sees them: an upstream token can name the key a
 * list stopped at, which may be another tenant's object. AES-256-GCM with the tenant id as
 * associated data, so a token is opaque, tamper-proof and useless to any other tenant; every
 * replica holds the same key, so any replica can continue a list another one started.
 */
export function sealContinue(key: Buffer, tenantId: string, upstreamToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(tenantId));
  const body = Buffer.concat([cipher.update(upstreamToken, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function openContinue(key: Buffer, tenantId: string, token: string): string {
  try {
    const raw = Buffer.from(token, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(tenantId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new TranslationError(400, 'BadRequest', 'continue token is not valid');
  }
}
