import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The service's Ed25519 signing key for audit exports: generated on first start beside the data
 * (`$DATA_DIR/audit-signing-key.pem`, PKCS #8, readable by its owner only), its public key
 * published at GET /api/v1/audit/public-key and printed by `npm run audit:public-key`.
 * `keyId`: the first 16 hex characters of the SHA-256 of the public key's DER (SPKI).
 */
export const SIGNING_KEY_FILE = 'audit-signing-key.pem';
export const SIGNATURE_ALGORITHM = 'Ed25519';

export interface SigningKey {
  publicKeyPem: string;
  keyId: string;
  sign(message: string): string;
}

export const publicKeyId = (publicKey: KeyObject): string =>
  createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

const fromPrivateKey = (privateKey: KeyObject): SigningKey => {
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`the audit signing key must be Ed25519, not ${privateKey.asymmetricKeyType}`);
  const publicKey = createPublicKey(privateKey);
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: publicKeyId(publicKey),
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
};

/** A new key, kept in memory only (a service composed on memory stores: tests' specifications). */
export const createSigningKey = (): SigningKey => fromPrivateKey(generateKeyPairSync('ed25519').privateKey);

/** Reads the key beside the data, or makes it when there is none (never replacing one). */
export const loadSigningKey = async (dataDir: string, { create = true } = {}): Promise<SigningKey> => {
  const file = join(dataDir, SIGNING_KEY_FILE);
  try {
    return fromPrivateKey(createPrivateKey(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT' || !create) throw error;
  }
  const { privateKey } = generateKeyPairSync('ed25519');
  try {
    await writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another process made it first: use that one.
    if ((error as { code?: string }).code === 'EEXIST') return loadSigningKey(dataDir, { create: false });
    throw error;
  }
  return fromPrivateKey(privateKey);
};

/** Checks an Ed25519 signature (base64) over a UTF-8 message with a PEM public key. */
export const verifySignature = (publicKeyPem: string, message: string, signature: string): boolean => {
  const key = createPublicKey(publicKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the public key must be Ed25519, not ${key.asymmetricKeyType}`);
  return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
};
