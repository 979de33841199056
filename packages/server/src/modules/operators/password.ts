import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Operator passwords, hashed with scrypt (memory-hard, in Node's crypto: no native addon to build
 * and nothing downloaded at install). The parameters are stored with each hash, so they can be
 * raised later without invalidating older hashes: `needsRehash` says when to re-hash at sign-in.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** scrypt's parameters: N = 2^logN, the block size r and the parallelism p. */
export interface PasswordCost {
  logN: number;
  r: number;
  p: number;
}

/** N = 2^15, r = 8, p = 3: one of OWASP's equivalent scrypt minimums, 32 MiB of memory per hash. */
export const PASSWORD_COST: PasswordCost = { logN: 15, r: 8, p: 3 };
/**
 * The test profile's (TOLLGATE_PROFILE=test, what the suite's apps run): about 2 ms a hash
 * instead of 275 ms, which hundreds of sign-ins in the suite paid. Each stored hash names its
 * parameters, so verification is the same code either way; every other profile uses PASSWORD_COST.
 */
export const TEST_PASSWORD_COST: PasswordCost = { logN: 10, r: 8, p: 1 };
const KEY_LENGTH = 32;

export function passwordCost(profile: 'development' | 'test' | 'production'): PasswordCost {
  return profile === 'test' ? TEST_PASSWORD_COST : PASSWORD_COST;
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost: PasswordCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost.logN, cost.r, cost.p);
  return `scrypt$${cost.logN}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/=]{16,64})\$([A-Za-z0-9+/=]{16,128})$/;

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = STORED.exec(stored);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5] as string, 'base64');
  const actual = await derive(password, Buffer.from(m[4] as string, 'base64'), logN, r, p);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Spends the same work as a real verification, for an e-mail that has no account: the answer
 * then takes as long as a wrong password, so timing does not tell which e-mails exist.
 */
const dummies = new Map<PasswordCost, Promise<string>>();
export async function verifyAgainstNothing(password: string, cost: PasswordCost = PASSWORD_COST): Promise<false> {
  let dummy = dummies.get(cost);
  if (!dummy) dummies.set(cost, (dummy = hashPassword('not a password anyone has', cost)));
  await verifyPassword(password, await dummy);
  return false;
}

/** Pure: why a new password is refused, or null. Length is the rule (NIST SP 800-63B), not character classes. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters long.`;
  if (length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters long.`;
  if (password.trim() === '') return 'The password must not be only spaces.';
  return null;
}
