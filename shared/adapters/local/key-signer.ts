import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PublicJwk, TokenSigner } from '../../auth/signer';

/** Loads the ES256 key pair kept at `path`, creating it (mode 0600) on first start. */
function loadOrCreate(path: string): KeyObject {
  try {
    return createPrivateKey(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    return privateKey;
  }
}

/** Local adapter of the signing port: a P-256 key pair in a file under the data directory. */
export class LocalKeySigner implements TokenSigner {
  private readonly privateKey: KeyObject;
  private readonly jwk: PublicJwk;

  constructor(path: string) {
    this.privateKey = loadOrCreate(path);
    const publicJwk = createPublicKey(this.privateKey).export({ format: 'jwk' });
    const kid = createHash('sha256')
      .update(JSON.stringify([publicJwk.x, publicJwk.y]))
      .digest('base64url')
      .slice(0, 16);
    this.jwk = { ...publicJwk, kty: 'EC', kid, alg: 'ES256', use: 'sig' };
  }

  async sign(signingInput: Buffer): Promise<Buffer> {
    return sign('sha256', signingInput, { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
  }

  async publicJwk(): Promise<PublicJwk> {
    return this.jwk;
  }
}
