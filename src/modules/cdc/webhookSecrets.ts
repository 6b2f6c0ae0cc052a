// Webhook signing secrets are kept encrypted (AES-256-GCM, key derived from the deployment secret),
// in the log and in the read model alike; only the delivery reactor decrypts them.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '../../../infra/crypto/secrets.ts';

const VERSION = 'v1';

export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

export function createSecretBox(deploymentSecret: string): SecretBox {
  const key = deriveKey(deploymentSecret, 'cdc-webhook-secret');
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const encrypted = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), encrypted.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, encrypted] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || encrypted === undefined) throw new Error('Unreadable webhook secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(encrypted, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
