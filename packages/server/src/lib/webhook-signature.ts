// Signature verification for inbound third-party webhooks. Pure apart from node:crypto (and the
// equally pure node:querystring, used only to mirror one of Twilio's URL normalisations): the
// clock is an argument, nothing is logged, nothing is stored.
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify as verifyDigitalSignature, type KeyObject } from 'node:crypto';
import { parse as parseQueryString, stringify as stringifyQueryString } from 'node:querystring';

export type SignatureScheme =
  | { kind: 'stripe' }
  | { kind: 'hub_sha256' }
  | { kind: 'hub_sha1' }
  | { kind: 'raw_sha256' }
  | { kind: 'twilio' }
  | { kind: 'sendgrid' }
  | { kind: 'slack' }
  | { kind: 'custom'; header: string; algorithm: 'sha256' | 'sha1'; encoding: 'hex' | 'base64'; prefix: string };

export interface SignedRequest {
  /** The raw bytes exactly as received. */
  body: Buffer;
  /** Header names in lower case, as Node gives them (a value may be an array when repeated). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The public URL the provider posted to: scheme, host, path and query (for Twilio). */
  url: string;
  /** The request's Content-Type header, or null. */
  contentType: string | null;
}

export type VerificationFailure =
  | 'missing_secret'
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'body_hash_mismatch'
  | 'invalid_public_key';

export type Verification = { ok: true } | { ok: false; reason: VerificationFailure; message: string };

export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** Fails closed: a null/empty secret, or any exception while checking, is a failure, never a pass. */
export function verifySignature(scheme: SignatureScheme, secret: string | null, request: SignedRequest, nowMs: number): Verification {
  const header = displayHeader(scheme);
  if (secret === null || secret.trim() === '') {
    return failure('missing_secret', `No signing secret is configured for this endpoint, so the ${header} header cannot be checked.`);
  }
  try {
    checkScheme(scheme, secret, request, nowMs);
    return { ok: true };
  } catch (error) {
    if (error instanceof Rejection) return failure(error.reason, error.message);
    // Anything unexpected (a hostile header object, a crypto error) must not turn into a pass.
    return failure('malformed_signature', `The ${header} header could not be checked.`);
  }
}

/** The header names (lower case) that carry the signature for this scheme, so the ingestion log can redact them. */
export function signatureHeaderNames(scheme: SignatureScheme): string[] {
  switch (scheme.kind) {
    case 'stripe':
      return ['stripe-signature'];
    case 'hub_sha256':
      return ['x-hub-signature-256'];
    case 'hub_sha1':
      return ['x-hub-signature'];
    case 'raw_sha256':
      return ['x-signature-256'];
    case 'twilio':
      return ['x-twilio-signature'];
    case 'sendgrid':
      return ['x-twilio-email-event-webhook-signature'];
    case 'slack':
      return ['x-slack-signature'];
    case 'custom':
      return [scheme.header.toLowerCase()];
  }
}

function displayHeader(scheme: SignatureScheme): string {
  switch (scheme.kind) {
    case 'stripe':
      return 'Stripe-Signature';
    case 'hub_sha256':
      return 'X-Hub-Signature-256';
    case 'hub_sha1':
      return 'X-Hub-Signature';
    case 'raw_sha256':
      return 'X-Signature-256';
    case 'twilio':
      return 'X-Twilio-Signature';
    case 'sendgrid':
      return 'X-Twilio-Email-Event-Webhook-Signature';
    case 'slack':
      return 'X-Slack-Signature';
    case 'custom':
      return scheme.header;
  }
}

function checkScheme(scheme: SignatureScheme, secret: string, request: SignedRequest, nowMs: number): void {
  switch (scheme.kind) {
    case 'stripe':
      return checkStripe(secret, request, nowMs);
    case 'hub_sha256':
      return checkBodyHmac(secret, request, { header: 'X-Hub-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' });
    case 'hub_sha1':
      return checkBodyHmac(secret, request, { header: 'X-Hub-Signature', algorithm: 'sha1', encoding: 'hex', prefix: 'sha1=' });
    case 'raw_sha256':
      return checkBodyHmac(secret, request, { header: 'X-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: '' });
    case 'twilio':
      return checkTwilio(secret, request);
    case 'sendgrid':
      return checkSendGrid(secret, request, nowMs);
    case 'slack':
      return checkSlack(secret, request, nowMs);
    case 'custom':
      return checkBodyHmac(secret, request, scheme);
    default: {
      const unknown: never = scheme;
      throw new Error(`unknown signature scheme ${JSON.stringify(unknown)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Schemes

interface BodyHmacSpec {
  header: string;
  algorithm: 'sha256' | 'sha1';
  encoding: 'hex' | 'base64';
  prefix: string;
}

/** GitHub (both generations), X-Signature-256 and the user-defined scheme: an HMAC of the body alone. */
function checkBodyHmac(secret: string, request: SignedRequest, spec: BodyHmacSpec): void {
  const value = signatureHeader(request, spec.header);
  // The prefix is compared exactly: "SHA256=" is not what any of these senders emit.
  if (!value.startsWith(spec.prefix)) {
    reject('malformed_signature', `The ${spec.header} header does not start with "${spec.prefix}".`);
  }
  const provided = decodeDigest(value.slice(spec.prefix.length), spec.encoding);
  if (provided === null) {
    reject('malformed_signature', `The ${spec.header} header does not hold a ${spec.encoding} digest.`);
  }
  if (!digestEquals(hmac(spec.algorithm, secret, request.body), provided)) {
    reject('signature_mismatch', `The ${spec.header} header does not match the request body and the configured secret.`);
  }
}

/** Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>…][,v0=…]. Several v1 values appear while a secret is being rolled. */
function checkStripe(secret: string, request: SignedRequest, nowMs: number): void {
  const header = 'Stripe-Signature';
  const { timestamp, signatures } = parseStripeHeader(signatureHeader(request, header));
  const expected = hmac('sha256', secret, `${timestamp}.`, request.body);
  if (!anyDigestEquals(expected, signatures)) {
    reject('signature_mismatch', `No v1 signature in the ${header} header matches the request body and the configured secret.`);
  }
  // Checked after the signature so that a tolerance failure always means a genuine but stale
  // (or replayed, or clock-skewed) delivery rather than a forgery.
  checkFreshness(Number(timestamp), nowMs, `the t= timestamp of the ${header} header`);
}

function parseStripeHeader(value: string): { timestamp: string; signatures: Buffer[] } {
  const header = 'Stripe-Signature';
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const item of value.split(',')) {
    const equals = item.indexOf('=');
    if (equals <= 0) reject('malformed_signature', `The ${header} header is not a list of key=value pairs.`);
    const key = item.slice(0, equals).trim();
    const field = item.slice(equals + 1).trim();
    if (key === 't') {
      // Two timestamps usually mean two headers joined by a proxy; which one was signed is unknowable.
      if (timestamp !== undefined) reject('malformed_signature', `The ${header} header carries more than one t= timestamp.`);
      if (!/^\d+$/.test(field)) reject('malformed_signature', `The t= timestamp in the ${header} header is not a whole number of seconds.`);
      timestamp = field;
    } else if (key === 'v1') {
      const digest = decodeHex(field);
      if (digest === null) reject('malformed_signature', `A v1 signature in the ${header} header is not hexadecimal.`);
      signatures.push(digest);
    }
    // Other schemes are ignored, as Stripe's libraries do: v0 is a test-mode scheme Stripe
    // signs with a different secret, and is never trusted here.
  }
  if (timestamp === undefined) reject('missing_timestamp', `The ${header} header has no t= timestamp.`);
  if (signatures.length === 0) reject('missing_signature', `The ${header} header has no v1 signature.`);
  return { timestamp, signatures };
}

/** X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<ts>:<body>">, with the timestamp in its own header. */
function checkSlack(secret: string, request: SignedRequest, nowMs: number): void {
  const header = 'X-Slack-Signature';
  const value = signatureHeader(request, header);
  const timestamp = timestampHeader(request, 'X-Slack-Request-Timestamp');
  if (!value.startsWith('v0=')) reject('malformed_signature', `The ${header} header does not start with "v0=".`);
  const provided = decodeHex(value.slice('v0='.length));
  if (provided === null) reject('malformed_signature', `The ${header} header does not hold a hexadecimal digest.`);
  if (!digestEquals(hmac('sha256', secret, `v0:${timestamp}:`, request.body), provided)) {
    reject('signature_mismatch', `The ${header} header does not match the request body, its timestamp and the configured secret.`);
  }
  checkFreshness(Number(timestamp), nowMs, 'the X-Slack-Request-Timestamp header');
}

/** SendGrid's Event Webhook: an ECDSA P-256 signature over timestamp + body; the "secret" is SendGrid's public key. */
function checkSendGrid(publicKey: string, request: SignedRequest, nowMs: number): void {
  const header = 'X-Twilio-Email-Event-Webhook-Signature';
  const key = sendGridPublicKey(publicKey);
  if (key === null) {
    reject('invalid_public_key', `The configured verification key is not a P-256 public key, so the ${header} header cannot be checked.`);
  }
  const value = signatureHeader(request, header);
  const timestamp = timestampHeader(request, 'X-Twilio-Email-Event-Webhook-Timestamp');
  const signature = decodeBase64(value);
  if (signature === null) reject('malformed_signature', `The ${header} header is not base64.`);
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), request.body]);
  if (!verifyDigitalSignature('sha256', signed, { key, dsaEncoding: 'der' }, signature)) {
    reject('signature_mismatch', `The ${header} header does not match the request body, its timestamp and the configured public key.`);
  }
  checkFreshness(Number(timestamp), nowMs, 'the X-Twilio-Email-Event-Webhook-Timestamp header');
}

/**
 * SendGrid's dashboard shows the key as bare base64 of the SPKI DER; PEM is accepted too. A private
 * key, an RSA key or another curve is refused, so that a pasting mistake is reported, not hidden.
 */
function sendGridPublicKey(text: string): KeyObject | null {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    if (trimmed.startsWith('-----')) {
      if (!trimmed.startsWith('-----BEGIN PUBLIC KEY-----')) return null;
      key = createPublicKey({ key: trimmed, format: 'pem' });
    } else {
      const der = decodeBase64(trimmed.replace(/\s+/g, ''));
      if (der === null) return null;
      key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    }
  } catch {
    return null;
  }
  const ok = key.type === 'public' && key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  return ok ? key : null;
}

/**
 * X-Twilio-Signature: base64 HMAC-SHA1 (keyed with the auth token) over the URL, followed for form
 * posts by every parameter name+value sorted by name. JSON posts are covered instead by a
 * bodySHA256 query parameter, which is part of the signed URL.
 */
function checkTwilio(authToken: string, request: SignedRequest): void {
  const header = 'X-Twilio-Signature';
  const provided = decodeBase64(signatureHeader(request, header));
  if (provided === null) reject('malformed_signature', `The ${header} header is not base64.`);
  // The same test twilio's validateRequestWithBody uses: a bodySHA256 in the query selects the JSON form.
  const bodyHash = queryParameter(request.url, 'bodySHA256');
  const params = bodyHash === null ? twilioFormParams(request) : new Map<string, string[]>();
  const candidates = twilioUrlCandidates(request.url).map((url) => hmac('sha1', authToken, twilioBaseString(url, params)));
  if (!anyExpectedEquals(candidates, provided)) {
    reject('signature_mismatch', `The ${header} header does not match the URL, the form parameters and the configured auth token.`);
  }
  if (bodyHash !== null) {
    const claimed = decodeHex(bodyHash);
    const actual = createHash('sha256').update(request.body).digest();
    if (claimed === null || !digestEquals(actual, claimed)) {
      reject('body_hash_mismatch', `The bodySHA256 query parameter signed by the ${header} header does not match the request body.`);
    }
  }
}

function twilioFormParams(request: SignedRequest): Map<string, string[]> {
  const params = new Map<string, string[]>();
  if (request.body.length === 0) return params;
  if (mediaType(request.contentType) !== 'application/x-www-form-urlencoded') {
    // Twilio signs a non-form body only through bodySHA256; without it the body would be unauthenticated.
    reject('body_hash_mismatch', `The X-Twilio-Signature header covers a non-form body only through a bodySHA256 query parameter, and the URL has none.`);
  }
  for (const [name, value] of new URLSearchParams(request.body.toString('utf8'))) {
    const values = params.get(name);
    if (values) values.push(value);
    else params.set(name, [value]);
  }
  return params;
}

/** As twilio's getExpectedTwilioSignature: names sorted; a repeated name's values de-duplicated and sorted. */
function twilioBaseString(url: string, params: ReadonlyMap<string, readonly string[]>): string {
  let data = url;
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name))].sort()) data += name + value;
  }
  return data;
}

/**
 * The URLs twilio's validateRequest tries: as received with the default port removed and added
 * (Twilio has signed both spellings over the years), then the WHATWG-normalised URL, with and
 * without the port and with the query re-encoded by Node's legacy querystring. Unlike twilio's
 * helper, a non-default port is never dropped: a signature for https://host/x must not pass for
 * https://host:8443/x, which is another endpoint.
 */
function twilioUrlCandidates(url: string): string[] {
  const candidates = defaultPortVariants(url);
  let normalized: string | null = null;
  try {
    normalized = new URL(url).toString();
  } catch {
    // Not an absolute URL: only the string as received can have been signed.
  }
  if (normalized !== null) {
    for (const variant of defaultPortVariants(normalized)) candidates.push(variant, withLegacyQueryString(variant));
  }
  return [...new Set(candidates)];
}

const DEFAULT_PORTS: ReadonlyMap<string, string> = new Map([
  ['http', ':80'],
  ['https', ':443'],
]);

function defaultPortVariants(url: string): string[] {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i.exec(url);
  if (!match) return [url];
  const [prefix, scheme = '', authority = ''] = match;
  const defaultPort = DEFAULT_PORTS.get(scheme.toLowerCase());
  if (defaultPort === undefined) return [url];
  const hostStart = authority.lastIndexOf('@') + 1;
  // A colon only starts the port after the closing bracket of an IPv6 literal.
  const portStart = authority.indexOf(':', Math.max(hostStart, authority.lastIndexOf(']') + 1));
  const rest = url.slice(prefix.length);
  const base = `${scheme}://${authority.slice(0, portStart === -1 ? undefined : portStart)}`;
  if (portStart === -1) return [url, `${base}${defaultPort}${rest}`];
  if (authority.slice(portStart) === defaultPort) return [url, `${base}${rest}`];
  return [url];
}

function withLegacyQueryString(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || queryStart === url.length - 1) return url;
  return `${url.slice(0, queryStart)}?${stringifyQueryString(parseQueryString(url.slice(queryStart + 1)))}`;
}

function queryParameter(url: string, name: string): string | null {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return null;
  const fragment = url.indexOf('#', queryStart);
  return new URLSearchParams(url.slice(queryStart + 1, fragment === -1 ? undefined : fragment)).get(name);
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

class Rejection extends Error {
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

function reject(reason: VerificationFailure, message: string): never {
  throw new Rejection(reason, message);
}

function failure(reason: VerificationFailure, message: string): Verification {
  return { ok: false, reason, message };
}

type HeaderRead = { kind: 'absent' } | { kind: 'repeated' } | { kind: 'value'; value: string };

/** Case-insensitive, so a caller that kept the sender's spelling is not silently unprotected. */
function readHeader(headers: SignedRequest['headers'], display: string): HeaderRead {
  const wanted = display.toLowerCase();
  const found: Array<string | string[]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && name.toLowerCase() === wanted) found.push(value);
  }
  const [only] = found;
  if (only === undefined) return { kind: 'absent' };
  if (found.length > 1 || typeof only !== 'string') return { kind: 'repeated' };
  const value = only.trim();
  return value === '' ? { kind: 'absent' } : { kind: 'value', value };
}

function signatureHeader(request: SignedRequest, display: string): string {
  const read = readHeader(request.headers, display);
  if (read.kind === 'absent') reject('missing_signature', `The ${display} header is missing.`);
  // A repeated signature header is ambiguous about which value was meant; refuse rather than pick one.
  if (read.kind === 'repeated') reject('malformed_signature', `The ${display} header was sent more than once.`);
  return read.value;
}

/** The digits exactly as sent, since they are part of the signed bytes. */
function timestampHeader(request: SignedRequest, display: string): string {
  const read = readHeader(request.headers, display);
  if (read.kind === 'absent') reject('missing_timestamp', `The ${display} header is missing.`);
  if (read.kind === 'repeated') reject('malformed_signature', `The ${display} header was sent more than once.`);
  if (!/^\d+$/.test(read.value)) reject('malformed_signature', `The ${display} header is not a whole number of seconds.`);
  return read.value;
}

/** Both directions: a timestamp far in the future is as suspect as an old one (and a NaN clock fails). */
function checkFreshness(timestampSeconds: number, nowMs: number, where: string): void {
  const skew = Math.abs(Math.floor(nowMs / 1000) - timestampSeconds);
  if (!(skew <= TIMESTAMP_TOLERANCE_SECONDS)) {
    reject('timestamp_outside_tolerance', `The time in ${where} is more than ${TIMESTAMP_TOLERANCE_SECONDS} seconds away from the current time.`);
  }
}

function hmac(algorithm: 'sha256' | 'sha1', secret: string, ...parts: Array<string | Buffer>): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

function decodeDigest(text: string, encoding: 'hex' | 'base64'): Buffer | null {
  return encoding === 'hex' ? decodeHex(text) : decodeBase64(text);
}

/** Either case: the comparison is on the decoded bytes, never on the spelling. */
function decodeHex(text: string): Buffer | null {
  return /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : null;
}

/** Canonical padded base64 only: Buffer.from would otherwise skip junk characters silently. */
function decodeBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

/** Constant time for equal lengths; a wrong length still costs a full comparison and says nothing about the expected bytes. */
function digestEquals(expected: Buffer, provided: Buffer): boolean {
  if (provided.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, provided);
}

/** Every candidate is compared (no early exit), so the time taken does not reveal which one matched. */
function anyDigestEquals(expected: Buffer, provided: readonly Buffer[]): boolean {
  let found = false;
  for (const candidate of provided) found = digestEquals(expected, candidate) || found;
  return found;
}

function anyExpectedEquals(expected: readonly Buffer[], provided: Buffer): boolean {
  let found = false;
  for (const candidate of expected) found = digestEquals(candidate, provided) || found;
  return found;
}
