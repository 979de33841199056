import { hintOf, randomHex, sha256Hex, type Environment } from '../../lib/crypto.js';

/**
 * Every kind of presented secret, told apart by its prefix alone: authentication looks each up
 * in its own kind's table, and malformed input never reaches the database.
 */
export type SecretKind = 'secret_key' | 'access_token' | 'storefront_key' | 'widget_session' | 'operator_session' | 'hub_session';

const formats: Array<[SecretKind, RegExp]> = [
  ['secret_key', /^sk_(test|live)_[0-9a-f]{32}$/],
  ['access_token', /^at_(test|live)_[0-9a-f]{64}$/],
  ['storefront_key', /^pk_(test|live)_[0-9a-f]{32}$/],
  ['widget_session', /^wst_(test|live)_[0-9a-f]{64}$/],
  // The console's cookie: an operator works in both environments, so it names none.
  ['operator_session', /^tgc_()[0-9a-f]{64}$/],
  ['hub_session', /^hst_(test|live)_[0-9a-f]{64}$/],
];

/**
 * Pure: recognise a presented secret by its form, so malformed input never reaches the database.
 * `environment` is null for a secret that names none (a console session).
 */
export function parseSecret(value: string): { kind: SecretKind; environment: Environment | null } | null {
  for (const [kind, re] of formats) {
    const m = re.exec(value);
    if (m) return { kind, environment: m[1] ? (m[1] as Environment) : null };
  }
  return null;
}

/** A new secret, its hash for storage and its display hint. The plaintext leaves only once. */
export interface NewSecret {
  plaintext: string;
  hash: string;
  hint: string;
}

function make(plaintext: string): NewSecret {
  return { plaintext, hash: sha256Hex(plaintext), hint: hintOf(plaintext) };
}

/** sk_test_/sk_live_ + 32 hex from 16 random bytes: 40 characters, as the spec fixes. */
export const newBearerKey = (env: Environment): NewSecret => make(`sk_${env}_${randomHex(16)}`);
/** Storefront keys are public-facing, so they look different from secret keys. */
export const newStorefrontKey = (env: Environment): NewSecret => make(`pk_${env}_${randomHex(16)}`);
/** Client secrets: 32 random bytes as 64 hex characters. */
export const newClientSecret = (): NewSecret => make(randomHex(32));
export const newAccessToken = (env: Environment): NewSecret => make(`at_${env}_${randomHex(32)}`);
/** Widget session tokens: they sit in a browser for minutes, so they look like no other secret. */
export const newWidgetSessionToken = (env: Environment): NewSecret => make(`wst_${env}_${randomHex(32)}`);
/** A console session's cookie secret; it names no environment (an operator works in both). */
export const newOperatorSessionToken = (): NewSecret => make(`tgc_${randomHex(32)}`);
/** An operator invitation's link token: sent by e-mail or chat, it works once. */
export const newOperatorInvitationToken = (): NewSecret => make(`tgi_${randomHex(32)}`);
/** Hub session secrets: the developer hub's cookie, for hours at most. */
export const newHubSessionSecret = (env: Environment): NewSecret => make(`hst_${env}_${randomHex(32)}`);
/**
 * Hub links (`/hub#hbl_…`): exchanged once for a hub session secret, never presented as a
 * credential, so parseSecret does not know them (one anywhere else is simply unknown).
 */
export const newHubLinkToken = (env: Environment): NewSecret => make(`hbl_${env}_${randomHex(32)}`);
