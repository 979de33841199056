import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets we must read back (webhook signing secrets: we compute the HMAC ourselves) are sealed
 * with AES-256-GCM. Each value gets a fresh random 96-bit nonce; the stored text is
 * base64(nonce | ciphertext | 16-byte tag), and the id of the key that sealed it is stored beside
 * it, so keys can rotate: the first configured key seals, every configured key opens, and
 * `tollgate secrets re-encrypt` moves old values to the current key.
 *
 * The associated data binds a value to its row (for example `webhook_source:wsrc_…`): a
 * ciphertext copied into another row fails its tag check instead of lending that row its secret.
 */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Sealed {
  keyId: string;
  ciphertext: string;
}

export class SecretBoxError extends Error {}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;

export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly EncryptionKey[]) {
    if (keys.length === 0) throw new SecretBoxError('SecretBox needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The key that seals new values. */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }

  hasKey(id: string): boolean {
    return this.byId.has(id);
  }

  seal(plaintext: string, associatedData: string): Sealed {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.currentKeyId, ciphertext: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64') };
  }

  /**
   * A tag over `data` for `purpose` (HMAC-SHA256, base64url, its first `length` characters: 43 is
   * all 256 bits, 22 is 132), made with the current key: for values we hand out and must recognise
   * later without storing them (an invoice's payment page address). The key is derived per
   * purpose, so a tag made for one use never passes for another.
   */
  mac(purpose: string, data: string, length = 43): string {
    return macWith(this.keys[0]!.key, purpose, data).slice(0, length);
  }

  /** Whether `tag` is mac(purpose, data) under any configured key (a rotated key's tags still pass while it is configured); constant time. */
  verifyMac(purpose: string, data: string, tag: string, length = 43): boolean {
    const presented = Buffer.from(tag, 'utf8');
    let ok = false;
    for (const k of this.keys) {
      const expected = Buffer.from(macWith(k.key, purpose, data).slice(0, length), 'utf8');
      if (expected.length === presented.length && timingSafeEqual(expected, presented)) ok = true;
    }
    return ok;
  }

  /** Throws SecretBoxError when the key is unknown or the tag does not match (tampered, wrong key or wrong row). */
  open(sealed: Sealed, associatedData: string): string {
    const key = this.byId.get(sealed.keyId);
    if (!key) throw new SecretBoxError(`no encryption key with id '${sealed.keyId}' is configured (TOLLGATE_ENCRYPTION_KEYS)`);
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError('sealed value is too short');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`sealed value failed its authentication check (key '${sealed.keyId}')`);
    }
  }
}

function macWith(key: Buffer, purpose: string, data: string): string {
  const derived = createHmac('sha256', key).update(`tollgate mac v1 ${purpose}`).digest();
  return createHmac('sha256', derived).update(data, 'utf8').digest('base64url');
}

/** `id:base64key[,id:base64key…]`: the first seals, all open. Each key is 32 random bytes. */
export function parseEncryptionKeys(text: string, name = 'TOLLGATE_ENCRYPTION_KEYS'): EncryptionKey[] {
  const keys: EncryptionKey[] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const colon = part.indexOf(':');
    if (colon < 0) throw new SecretBoxError(`${name}: each entry reads id:base64key (got an entry without ':')`);
    const id = part.slice(0, colon);
    const encoded = part.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new SecretBoxError(`${name}: key id '${id}' must be 1-32 letters, digits, '_', '.' or '-'`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
      throw new SecretBoxError(`${name}: key '${id}' must be 32 bytes in base64 (openssl rand -base64 32)`);
    }
    if (keys.some((k) => k.id === id)) throw new SecretBoxError(`${name}: key id '${id}' appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new SecretBoxError(`${name} holds no key`);
  return keys;
}

export function generateEncryptionKey(id: string): EncryptionKey {
  return { id, key: randomBytes(32) };
}

export const formatEncryptionKey = (k: EncryptionKey) => `${k.id}:${k.key.toString('base64')}`;

/**
 * Development only: a key generated on first start and kept in the data directory (mode 0600),
 * so `npm start` needs no set-up and secrets survive restarts. Production refuses to start
 * without TOLLGATE_ENCRYPTION_KEYS instead (config.ts).
 */
export function loadOrCreateKeyFile(dataDir: string): { keys: EncryptionKey[]; file: string; created: boolean } {
  const file = path.join(dataDir, 'encryption-keys');
  if (existsSync(file)) return { keys: parseEncryptionKeys(readFileSync(file, 'utf8'), file), file, created: false };
  mkdirSync(dataDir, { recursive: true });
  const key = generateEncryptionKey('dev1');
  try {
    writeFileSync(file, `${formatEncryptionKey(key)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process starting at the same moment wrote it first: use that one.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { keys: parseEncryptionKeys(readFileSync(file, 'utf8'), file), file, created: false };
    throw err;
  }
  chmodSync(file, 0o600);
  return { keys: [key], file, created: true };
}
