/**
 * TEST AND DEVELOPMENT CODE, never production's: a small HTTP stand-in for the part of Stripe's API that the Stripe
 * adapter (src/modules/payments/stripe-provider.ts) calls, shaped after Stripe's published API
 * reference and the `stripe` package's types. The real `stripe` client talks to it (point
 * STRIPE_API_BASE, i.e. the client's host, port and protocol, at `fake.apiBase`); it listens on
 * 127.0.0.1 only and nothing here reaches Stripe.
 *
 * What it speaks, as Stripe does: form-encoded bodies (`metadata[k]=v`, `expand[0]=…`), Stripe-shaped
 * JSON objects and `{ error: { type, code, decline_code, message, param } }` answers with Stripe's
 * statuses (400, 401, 402 card errors carrying the PaymentIntent, 404), the `Idempotency-Key`
 * header (the same key with the same parameters replays the first answer with
 * `Idempotent-Replayed: true`; with other parameters or another endpoint it is a 400
 * `idempotency_error`; refused parameters save nothing), and events signed with the `stripe`
 * package's own `webhooks.generateTestHeaderString`.
 *
 *   POST /v1/customers, GET|POST /v1/customers/:id      (invoice_settings.default_payment_method)
 *   POST /v1/checkout/sessions (mode=setup or payment), GET /v1/checkout/sessions/:id, POST …/:id/expire,
 *   GET /v1/setup_intents/:id
 *   GET  /v1/payment_methods/:id
 *   POST /v1/payment_intents (confirm, off_session), GET /v1/payment_intents/:id, POST …/:id/confirm
 *   POST /v1/refunds                                     (never more than is left unrefunded)
 *   `?expand[]=` on any GET (and on the POSTs' answers)
 *
 * Test cards, by Stripe's test PaymentMethod names: pm_card_visa and pm_card_mastercard succeed;
 * pm_card_chargeDeclined declines (card_declined / generic_decline); pm_card_chargeDeclinedInsufficientFunds
 * declines (card_declined / insufficient_funds); pm_card_authenticationRequired needs 3-D Secure on
 * every charge: off-session it declines with `authentication_required` (as Stripe does), on-session
 * it goes to requires_action (a redirect_to_url page on the fake when a return_url was given).
 *
 * Like Stripe, completing a setup-mode Checkout Session attaches the card to the customer but does
 * NOT make it the customer's default (the integration sets invoice_settings.default_payment_method).
 *
 * How a test drives it:
 *   const fake = await StripeFake.start({ clock: () => t.clock.now() });
 *   fake.apiBase, FAKE_STRIPE_SECRET_KEY                  → the adapter's settings
 *   fake.completeSetupSession(sessionId, 'pm_card_visa')  → the buyer finishes Checkout (pm id back)
 *   fake.payCheckoutSession(sessionId, 'pm_card_visa')    → the buyer pays a payment-mode Checkout page
 *   fake.expireCheckoutSession(sessionId)                 → a Checkout page reaches its expiry unpaid
 *   fake.attachCard(customerId, 'pm_card_chargeDeclined') → a default card without the Checkout round
 *   fake.completeAuthentication(piId, 'succeed' | 'fail') → the buyer finishes 3-D Secure
 *   fake.detachPaymentMethod(pmId), fake.dispute(piId)    → what happens outside our calls
 *   fake.failNext('timeout-after-execute' | 'reset-after-execute' | 'server-error', where?, times?)
 *   await fake.setDown(true | false)                      → connection refused, then back
 *   fake.setWebhookEndpoint(url, FAKE_STRIPE_WEBHOOK_SECRET); await fake.deliverWebhooks({ order: 'reversed', duplicates: true })
 *   fake.requests, fake.events, fake.deliveries, fake.paymentIntents… → assertions
 * Browsers (the development profile) can use the pages instead: the session's `url` and the 3-D
 * Secure `redirect_to_url` are small forms on the fake.
 *
 * It lives beside the demo because the development profile runs it too (TOLLGATE_STRIPE_FAKE,
 * demo/dev-stripe.ts), so `npm start` shows collection without a Stripe account; the tests import it
 * through test/helpers/stripe-fake.ts. The production profile refuses to start it.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';

/** The API key the fake accepts by default (the shape the connect route accepts). */
export const FAKE_STRIPE_SECRET_KEY = 'sk_test_tollgatefake0123456789';
/** A webhook signing secret for tests (the shape the connect route accepts). */
export const FAKE_STRIPE_WEBHOOK_SECRET = 'whsec_tollgatefake0123456789ab';

type Obj = Record<string, any>;

export type TestCard =
  'pm_card_visa' | 'pm_card_mastercard' | 'pm_card_chargeDeclined' | 'pm_card_chargeDeclinedInsufficientFunds' | 'pm_card_authenticationRequired';
type Outcome = 'succeeds' | 'generic_decline' | 'insufficient_funds' | 'authentication_required';

const TEST_CARDS: Record<TestCard, { brand: string; last4: string; outcome: Outcome }> = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'succeeds' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', outcome: 'succeeds' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'generic_decline' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', outcome: 'insufficient_funds' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'authentication_required' },
};

const DECLINES = {
  generic_decline: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  insufficient_funds: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  authentication_required: {
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
};

/** Stripe's amount rules the fake enforces (docs.stripe.com/currencies: three-decimal, special cases). */
const THREE_DECIMAL = new Set(['bhd', 'iqd', 'jod', 'kwd', 'lyd', 'omr', 'tnd']);
const WHOLE_UNITS_TIMES_100 = new Set(['isk', 'ugx']);

/**
 * - timeout-after-execute: the request is carried out (the charge exists, its events are emitted)
 *   but no answer ever comes: the client times out;
 * - reset-after-execute: carried out, then the connection is reset (stripe-node retries a reset
 *   once with the same Idempotency-Key, even with maxNetworkRetries 0, and gets the replay);
 * - server-error: a 500 `api_error` before anything is carried out (nothing is saved).
 */
export type Fault = 'timeout-after-execute' | 'reset-after-execute' | 'server-error';

export interface RecordedRequest {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | null;
  /** The status answered, or what happened instead. */
  status: number | 'no answer' | 'reset';
  replayed: boolean;
}

export interface Delivery {
  eventId: string;
  type: string;
  status: number | 'unreachable';
}

export interface StripeFakeOptions {
  /** Milliseconds since the epoch for `created` fields and webhook signature timestamps (a test clock). */
  clock?: () => number;
  /** API keys it accepts; any other gets Stripe's 401. */
  apiKeys?: readonly string[];
  webhook?: { url: string; secret: string } | null;
  /** Post each event as soon as it happens (in order, in the background; `settled()` waits); default: only when a test calls deliverWebhooks(). */
  autoDeliver?: boolean;
  /**
   * Instead of one endpoint: every endpoint to post each event to, asked at each delivery (the
   * development profile's every Stripe connection, each with its signing secret).
   */
  webhookTargets?: () => Promise<Array<{ url: string; secret: string }>>;
}

interface Answer {
  status: number;
  /** Serialized when answered, so a replay is the first answer as it was, not the object as it is now. */
  body: string;
  replayed?: boolean;
}

/** A request Stripe refuses before doing anything: nothing is saved under its idempotency key. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: Obj,
  ) {
    super(String(error.message));
  }
}

const missing = (param: string): Refusal =>
  new Refusal(400, { type: 'invalid_request_error', code: 'parameter_missing', param, message: `Missing required param: ${param}.` });

export class StripeFake {
  readonly requests: RecordedRequest[] = [];
  readonly events: Obj[] = [];
  readonly deliveries: Delivery[] = [];
  readonly customers = new Map<string, Obj>();
  readonly paymentMethods = new Map<string, Obj>();
  readonly paymentIntents = new Map<string, Obj>();
  readonly charges = new Map<string, Obj>();
  readonly refunds = new Map<string, Obj>();
  readonly checkoutSessions = new Map<string, Obj>();
  readonly setupIntents = new Map<string, Obj>();
  private readonly outcomes = new Map<string, Outcome>();
  private readonly saved = new Map<string, { fingerprint: string; answer: Answer }>();
  private readonly faults: Array<{ fault: Fault; method: string; path: string; times: number }> = [];
  private readonly sockets = new Set<Socket>();
  private pending: Obj[] = [];
  private delivering: Promise<unknown> = Promise.resolve();
  private cause: { id: string | null; idempotency_key: string | null } = { id: null, idempotency_key: null };
  private seq = 0;
  private port = 0;
  private readonly server: http.Server;
  private readonly now: () => number;
  private readonly apiKeys: readonly string[];
  private webhook: { url: string; secret: string } | null;
  private readonly autoDeliver: boolean;
  private readonly webhookTargets: (() => Promise<Array<{ url: string; secret: string }>>) | null;

  private constructor(options: StripeFakeOptions) {
    this.now = options.clock ?? (() => Date.now());
    this.apiKeys = options.apiKeys ?? [FAKE_STRIPE_SECRET_KEY];
    this.webhook = options.webhook ?? null;
    this.autoDeliver = options.autoDeliver ?? false;
    this.webhookTargets = options.webhookTargets ?? null;
    this.server = http.createServer((req, res) => {
      // A test driving the fake wrongly (completing a session twice through its page) gets a 500, not a crashed process.
      this.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  static async start(options: StripeFakeOptions = {}): Promise<StripeFake> {
    const fake = new StripeFake(options);
    await fake.listen(0);
    return fake;
  }

  /** Where the client points: http://127.0.0.1:<port>. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  setWebhookEndpoint(url: string, secret: string): void {
    this.webhook = { url, secret };
  }

  /** The next `times` requests to method + path meet the fault (default: the next PaymentIntent create). */
  failNext(fault: Fault, where: { method?: string; path?: string } = {}, times = 1): void {
    this.faults.push({ fault, method: where.method ?? 'POST', path: where.path ?? '/v1/payment_intents', times });
  }

  /** Down: the port refuses connections (open ones are cut). Up: listening on the same port again. */
  async setDown(down: boolean): Promise<void> {
    if (down && this.server.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      for (const s of this.sockets) s.destroy();
      await closed;
    } else if (!down && !this.server.listening) {
      await this.listen(this.port);
    }
  }

  async close(): Promise<void> {
    await this.settled();
    await this.setDown(true);
  }

  // --- What the buyer, the card network or the test does outside our API calls ---------------

  /** The buyer finishes the setup session's Checkout page with a test card: attached, not made default (as at Stripe). Returns the new PaymentMethod's id. */
  completeSetupSession(sessionId: string, card: TestCard = 'pm_card_visa'): string {
    const session = this.mustFind(this.checkoutSessions, sessionId);
    if (session.status !== 'open') throw new Error(`Checkout Session ${sessionId} is ${session.status}, not open`);
    const pm = this.newPaymentMethod(card, session.customer);
    const setupIntent = this.mustFind(this.setupIntents, session.setup_intent);
    Object.assign(setupIntent, { status: 'succeeded', payment_method: pm.id });
    session.status = 'complete';
    this.emit('payment_method.attached', pm);
    this.emit('checkout.session.completed', session);
    return pm.id as string;
  }

  /**
   * The buyer pays a payment-mode Checkout page with a test card. As on Stripe's page, a declined
   * card leaves the page open (the PaymentIntent fails, the buyer may try another card); a card
   * that succeeds completes it. Gives the PaymentIntent.
   */
  payCheckoutSession(sessionId: string, card: TestCard = 'pm_card_visa'): Obj {
    const session = this.mustFind(this.checkoutSessions, sessionId);
    if (session.mode !== 'payment' || session.status !== 'open') throw new Error(`Checkout Session ${sessionId} is not an open payment page`);
    let pi = session.payment_intent ? this.mustFind(this.paymentIntents, session.payment_intent) : null;
    if (!pi) {
      // Stripe makes the page's PaymentIntent when the buyer confirms, with payment_intent_data.
      const answer = this.createPaymentIntent(
        { amount: String(session.amount_total), currency: session.currency, customer: session.customer, ...session.payment_intent_data },
        (o) => ({ status: 200, body: JSON.stringify(o) }),
      );
      pi = this.mustFind(this.paymentIntents, JSON.parse(answer.body).id);
      session.payment_intent = pi.id;
    }
    pi.payment_method = this.newPaymentMethod(card, session.customer).id;
    try {
      this.confirm(pi, false, null, (o) => ({ status: 200, body: JSON.stringify(o) }));
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
    }
    if (pi.status === 'succeeded') {
      Object.assign(session, { status: 'complete', payment_status: 'paid' });
      this.emit('checkout.session.completed', session);
    }
    return pi;
  }

  /** A Checkout page reaches its expiry unpaid (Stripe's default: 24 hours). */
  expireCheckoutSession(sessionId: string): Obj {
    const session = this.mustFind(this.checkoutSessions, sessionId);
    return this.expireSession(session);
  }

  /**
   * A shortcut for tests that are not about adding a card: the card attached to the customer and
   * made its default, as after a completed setup session and applySetupSession (no events).
   */
  attachCard(customerId: string, card: TestCard = 'pm_card_visa', options: { makeDefault?: boolean } = {}): string {
    const customer = this.mustFind(this.customers, customerId);
    const pm = this.newPaymentMethod(card, customer.id as string);
    if (options.makeDefault ?? true) customer.invoice_settings.default_payment_method = pm.id;
    return pm.id as string;
  }

  /** The buyer completes (or fails) 3-D Secure on a PaymentIntent in requires_action. */
  completeAuthentication(paymentIntentId: string, outcome: 'succeed' | 'fail' = 'succeed'): Obj {
    const pi = this.mustFind(this.paymentIntents, paymentIntentId);
    if (pi.status !== 'requires_action') throw new Error(`PaymentIntent ${paymentIntentId} is ${pi.status}, not requires_action`);
    pi.next_action = null;
    if (outcome === 'succeed') return this.succeed(pi);
    pi.status = 'requires_payment_method';
    pi.last_payment_error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      payment_method: this.paymentMethods.get(pi.payment_method as string) ?? null,
    };
    this.emit('payment_intent.payment_failed', pi);
    return pi;
  }

  /** The customer removes a card (or the integration does): detached, and no longer the default. */
  detachPaymentMethod(paymentMethodId: string): void {
    const pm = this.mustFind(this.paymentMethods, paymentMethodId);
    const customer = pm.customer ? this.customers.get(pm.customer as string) : undefined;
    if (customer?.invoice_settings.default_payment_method === pm.id) customer!.invoice_settings.default_payment_method = null;
    pm.customer = null;
    this.emit('payment_method.detached', pm);
  }

  /** The cardholder disputes a succeeded payment. */
  dispute(paymentIntentId: string): Obj {
    const pi = this.mustFind(this.paymentIntents, paymentIntentId);
    const charge = this.mustFind(this.charges, pi.latest_charge);
    charge.disputed = true;
    const dispute = {
      id: this.id('dp'),
      object: 'dispute',
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: pi.id,
      reason: 'fraudulent',
      status: 'needs_response',
      created: this.seconds(),
      livemode: false,
    };
    this.emit('charge.dispute.created', dispute);
    return dispute;
  }

  // --- Webhooks --------------------------------------------------------------------------------

  /** Posts every event not yet delivered, in the order they happened or reversed, each twice with `duplicates`. */
  async deliverWebhooks(options: { order?: 'as-emitted' | 'reversed'; duplicates?: boolean } = {}): Promise<Delivery[]> {
    const batch = this.pending;
    this.pending = [];
    const out: Delivery[] = [];
    for (const event of options.order === 'reversed' ? [...batch].reverse() : batch) {
      out.push(await this.post(event));
      if (options.duplicates) out.push(await this.post(event));
    }
    return out;
  }

  /** Posts an event again (Stripe redelivers after a failure, and sometimes twice anyway). */
  async redeliver(eventId: string): Promise<Delivery> {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`No event ${eventId}`);
    return this.post(event);
  }

  /** Waits for the background deliveries of `autoDeliver`. */
  async settled(): Promise<void> {
    await this.delivering;
  }

  /** Events of one type, in the order they happened. */
  eventsOf(type: string): Obj[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Requests the fake received to one method and path (ids included), in order. */
  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** PaymentIntents that succeeded, optionally only those whose metadata has every given value. */
  succeededPaymentIntents(metadata: Record<string, string> = {}): Obj[] {
    return [...this.paymentIntents.values()].filter((pi) => pi.status === 'succeeded' && Object.entries(metadata).every(([k, v]) => pi.metadata[k] === v));
  }

  // --- HTTP ------------------------------------------------------------------------------------

  private async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.apiBase);
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/fake/')) return this.page(method, url.pathname, new URLSearchParams(raw), res);

    const params = decodeForm(method === 'POST' ? new URLSearchParams(raw) : url.searchParams);
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    const entry: RecordedRequest = { method, path: url.pathname, params, idempotencyKey: key, status: 'no answer', replayed: false };
    this.requests.push(entry);
    const requestId = this.id('req');

    const apiKey = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const authenticated = this.apiKeys.includes(apiKey);
    const fault = authenticated ? this.takeFault(method, url.pathname) : null;
    let answer: Answer;
    if (!authenticated) {
      answer = errorAnswer(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${mask(apiKey)}` });
    } else if (fault === 'server-error') {
      answer = errorAnswer(500, { type: 'api_error', message: 'An unknown error occurred' });
    } else {
      this.cause = { id: requestId, idempotency_key: key };
      answer = this.idempotent(method, url.pathname, params, key);
      this.cause = { id: null, idempotency_key: null };
    }
    entry.replayed = answer.replayed === true;

    if (fault === 'timeout-after-execute') return; // never answered; the client's timeout ends it
    if (fault === 'reset-after-execute') {
      entry.status = 'reset';
      req.socket.destroy();
      return;
    }
    entry.status = answer.status;
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'request-id': requestId,
      'stripe-version': req.headers['stripe-version'] ?? Stripe.API_VERSION,
      ...(key ? { 'idempotency-key': key } : {}),
      ...(answer.replayed ? { 'idempotent-replayed': 'true' } : {}),
    });
    res.end(answer.body);
  }

  private takeFault(method: string, path: string): Fault | null {
    const i = this.faults.findIndex((f) => f.method === method && f.path === path);
    if (i < 0) return null;
    const armed = this.faults[i]!;
    if (--armed.times === 0) this.faults.splice(i, 1);
    return armed.fault;
  }

  /** Stripe's idempotency layer: POSTs with a key replay their first answer, refused requests save nothing. */
  private idempotent(method: string, path: string, params: Obj, key: string | null): Answer {
    const fingerprint = `${method} ${path} ${stableJson(params)}`;
    const saved = method === 'POST' && key ? this.saved.get(key) : undefined;
    if (saved && saved.fingerprint !== fingerprint) {
      return errorAnswer(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    if (saved) return { ...saved.answer, replayed: true };
    let answer: Answer;
    try {
      answer = this.route(method, path, params);
    } catch (e) {
      if (e instanceof Refusal) return errorAnswer(e.status, e.error);
      throw e;
    }
    if (method === 'POST' && key) this.saved.set(key, { fingerprint, answer });
    return answer;
  }

  private route(method: string, path: string, p: Obj): Answer {
    const m = /^\/v1\/(customers|payment_methods|payment_intents|checkout\/sessions|setup_intents|refunds)(?:\/([^/]+))?(?:\/(confirm|cancel|expire))?$/.exec(
      path,
    );
    const [, collection, id, action] = m ?? [];
    const ok = (object: Obj): Answer => ({ status: 200, body: JSON.stringify(this.expanded(object, p.expand)) });
    switch (`${method} ${collection}${id ? '/:id' : ''}${action ? `/${action}` : ''}`) {
      case 'POST customers':
        return ok(this.createCustomer(p));
      case 'GET customers/:id':
        return ok(this.find(this.customers, 'customer', id!));
      case 'POST customers/:id':
        return ok(this.updateCustomer(this.find(this.customers, 'customer', id!), p));
      case 'GET payment_methods/:id':
        return ok(this.find(this.paymentMethods, 'payment_method', id!));
      case 'POST checkout/sessions':
        return ok(this.createCheckoutSession(p));
      case 'GET checkout/sessions/:id':
        return ok(this.find(this.checkoutSessions, 'checkout.session', id!));
      case 'POST checkout/sessions/:id/expire':
        return ok(this.expireSession(this.find(this.checkoutSessions, 'checkout.session', id!), true));
      case 'GET setup_intents/:id':
        return ok(this.find(this.setupIntents, 'setup_intent', id!));
      case 'POST payment_intents':
        return this.createPaymentIntent(p, ok);
      case 'GET payment_intents/:id':
        return ok(this.find(this.paymentIntents, 'payment_intent', id!));
      case 'POST payment_intents/:id/confirm':
        return this.confirmPaymentIntent(this.find(this.paymentIntents, 'payment_intent', id!), p, ok);
      case 'POST payment_intents/:id/cancel':
        return ok(this.cancelPaymentIntent(this.find(this.paymentIntents, 'payment_intent', id!), p));
      case 'POST refunds':
        return ok(this.createRefund(p));
      default:
        throw new Refusal(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
    }
  }

  // --- Customers, payment methods, Checkout ------------------------------------------------------

  private createCustomer(p: Obj): Obj {
    const customer = {
      id: this.id('cus'),
      object: 'customer',
      created: this.seconds(),
      email: p.email || null,
      name: p.name || null,
      description: p.description || null,
      metadata: p.metadata ?? {},
      invoice_settings: { default_payment_method: null, custom_fields: null, footer: null, rendering_options: null },
      balance: 0,
      livemode: false,
    };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private updateCustomer(customer: Obj, p: Obj): Obj {
    const wanted = p.invoice_settings?.default_payment_method;
    if (typeof wanted === 'string' && wanted !== '') {
      if (this.paymentMethods.get(wanted)?.customer !== customer.id) {
        throw new Refusal(400, {
          type: 'invalid_request_error',
          code: 'resource_missing',
          param: 'invoice_settings[default_payment_method]',
          message: `The customer does not have a payment method with the ID ${wanted}. The payment method must be attached to the customer.`,
        });
      }
    }
    if (wanted !== undefined) customer.invoice_settings.default_payment_method = wanted || null;
    for (const field of ['email', 'name', 'description'] as const) if (p[field] !== undefined) customer[field] = p[field] || null;
    if (p.metadata) Object.assign(customer.metadata, p.metadata);
    return customer;
  }

  private newPaymentMethod(card: TestCard, customer: string | null): Obj {
    const spec = TEST_CARDS[card];
    const pm = {
      id: this.id('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: spec.brand, display_brand: spec.brand, last4: spec.last4, exp_month: 12, exp_year: 2034, funding: 'credit', country: 'US' },
      billing_details: { address: null, email: null, name: null, phone: null },
      customer,
      metadata: {},
      created: this.seconds(),
      livemode: false,
    };
    this.paymentMethods.set(pm.id, pm);
    this.outcomes.set(pm.id, spec.outcome);
    return pm;
  }

  /** A PaymentMethod by id, or a new one from a test token (Stripe makes a fresh one each time a token is used). */
  private paymentMethodFor(value: string, customer: string | null): Obj {
    if (value in TEST_CARDS) return this.newPaymentMethod(value as TestCard, null);
    const pm = this.find(this.paymentMethods, 'payment_method', value, 'payment_method');
    if (pm.customer && customer && pm.customer !== customer) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        param: 'payment_method',
        message: `The provided PaymentMethod ${value} belongs to another Customer.`,
      });
    }
    return pm;
  }

  /** Stripe expires an open session only (the API's expire: a 400 otherwise). */
  private expireSession(session: Obj, byApi = false): Obj {
    if (session.status !== 'open') {
      if (!byApi) throw new Error(`Checkout Session ${session.id} is ${session.status}, not open`);
      throw new Refusal(400, {
        type: 'invalid_request_error',
        message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
      });
    }
    Object.assign(session, { status: 'expired', url: null });
    const pi = session.payment_intent ? this.paymentIntents.get(session.payment_intent) : undefined;
    if (pi && pi.status !== 'succeeded' && pi.status !== 'canceled') Object.assign(pi, { status: 'canceled', cancellation_reason: 'abandoned' });
    this.emit('checkout.session.expired', session);
    return session;
  }

  /** A payment page: one line for the amount, its PaymentIntent made when the buyer pays. */
  private createPaymentSession(p: Obj): Obj {
    const line = Array.isArray(p.line_items) && p.line_items.length === 1 ? (p.line_items[0] as Obj) : null;
    if (!line?.price_data) throw missing('line_items');
    const amount = this.amountParam(line.price_data.unit_amount, 'line_items[0][price_data][unit_amount]', true)!;
    const quantity = Number(line.quantity ?? 1);
    if (!p.success_url) throw missing('success_url');
    const customer = p.customer ? this.find(this.customers, 'customer', p.customer as string, 'customer').id : null;
    return this.newSession('payment', p, {
      customer,
      currency: String(line.price_data.currency).toLowerCase(),
      amount_subtotal: amount * quantity,
      amount_total: amount * quantity,
      setup_intent: null,
      payment_intent_data: p.payment_intent_data ?? {},
      payment_status: 'unpaid',
    });
  }

  /** A Checkout Session of `mode`, open for 24 hours as Stripe's default, with what is particular to its mode. */
  private newSession(mode: 'setup' | 'payment', p: Obj, fields: Obj): Obj {
    const created = this.seconds();
    const id = this.id('cs_test');
    const session = {
      id,
      object: 'checkout.session',
      mode,
      status: 'open',
      url: `${this.apiBase}/fake/checkout/${id}`,
      payment_intent: null,
      success_url: p.success_url,
      cancel_url: p.cancel_url ?? null,
      metadata: p.metadata ?? {},
      created,
      expires_at: created + 24 * 3600,
      livemode: false,
      ...fields,
    };
    this.checkoutSessions.set(id, session);
    return session;
  }

  private createCheckoutSession(p: Obj): Obj {
    if (p.mode === 'payment') return this.createPaymentSession(p);
    if (p.mode !== 'setup') {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        param: 'mode',
        message: 'This fake supports Checkout Sessions with mode=setup or mode=payment only.',
      });
    }
    if (!p.customer) throw missing('customer'); // optional at Stripe; Tollgate always sends one
    const customer = this.find(this.customers, 'customer', p.customer as string, 'customer');
    if (!p.success_url) throw missing('success_url');
    // Checkout uses dynamic payment methods unless told the types, and then needs the currency.
    if (!p.currency && !p.payment_method_types) throw missing('currency');
    const created = this.seconds();
    const setupIntent = {
      id: this.id('seti'),
      object: 'setup_intent',
      status: 'requires_payment_method',
      customer: customer.id,
      payment_method: null,
      usage: 'off_session',
      metadata: p.setup_intent_data?.metadata ?? {},
      created,
      livemode: false,
    };
    this.setupIntents.set(setupIntent.id, setupIntent);
    return this.newSession('setup', p, {
      customer: customer.id,
      currency: p.currency ?? null,
      setup_intent: setupIntent.id,
      payment_status: 'no_payment_required',
    });
  }

  // --- PaymentIntents and refunds --------------------------------------------------------------

  private createPaymentIntent(p: Obj, ok: (o: Obj) => Answer): Answer {
    const amount = this.amountParam(p.amount, 'amount', true)!;
    if (!p.currency) throw missing('currency');
    const currency = String(p.currency).toLowerCase();
    if (THREE_DECIMAL.has(currency) && amount % 10 !== 0) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        param: 'amount',
        message: `Invalid amount: ${currency.toUpperCase()} amounts must end in 0 (round them to the nearest ten).`,
      });
    }
    if (WHOLE_UNITS_TIMES_100.has(currency) && amount % 100 !== 0) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        code: 'invalid_charge_amount_no_decimal_compatible',
        param: 'amount',
        message: `Invalid amount. Currency ${currency.toUpperCase()} has become effectively zero-decimal and charged amounts must be evenly divisible by 100.`,
      });
    }
    const customer = p.customer ? this.find(this.customers, 'customer', p.customer as string, 'customer').id : null;
    const pm = p.payment_method ? this.paymentMethodFor(p.payment_method as string, customer) : null;
    const id = this.id('pi');
    const pi = {
      id,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      amount_capturable: 0,
      currency,
      customer,
      description: p.description ?? null,
      metadata: p.metadata ?? {},
      payment_method: pm?.id ?? null,
      payment_method_types: ['card'],
      status: pm ? 'requires_confirmation' : 'requires_payment_method',
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      client_secret: `${id}_secret_fake`,
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      cancellation_reason: null,
      canceled_at: null,
      created: this.seconds(),
      livemode: false,
    };
    this.paymentIntents.set(id, pi);
    if (!truthy(p.confirm)) return ok(pi);
    if (!pm) throw this.missingPaymentMethod(pi);
    return this.confirm(pi, truthy(p.off_session) || p.off_session === 'one_off' || p.off_session === 'recurring', p.return_url ?? null, ok);
  }

  private confirmPaymentIntent(pi: Obj, p: Obj, ok: (o: Obj) => Answer): Answer {
    if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status as string)) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        code: 'payment_intent_unexpected_state',
        message: `You cannot confirm this PaymentIntent because it has a status of ${pi.status}.`,
        payment_intent: pi,
      });
    }
    if (p.payment_method) pi.payment_method = this.paymentMethodFor(p.payment_method as string, pi.customer as string | null).id;
    if (!pi.payment_method) throw this.missingPaymentMethod(pi);
    return this.confirm(pi, truthy(p.off_session), p.return_url ?? null, ok);
  }

  /** Stripe cancels a PaymentIntent that has not succeeded (nor is processing); a succeeded one is refused. */
  private cancelPaymentIntent(pi: Obj, p: Obj): Obj {
    if (['succeeded', 'canceled', 'processing'].includes(pi.status as string)) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        code: 'payment_intent_unexpected_state',
        message: `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
        payment_intent: pi,
      });
    }
    Object.assign(pi, { status: 'canceled', next_action: null, cancellation_reason: p.cancellation_reason ?? null, canceled_at: this.seconds() });
    this.emit('payment_intent.canceled', pi);
    return pi;
  }

  private missingPaymentMethod(pi: Obj): Refusal {
    return new Refusal(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: "You cannot confirm this PaymentIntent because it's missing a payment method.",
      payment_intent: pi,
    });
  }

  /** The charge attempt: the card's outcome decides (a card not from a test token succeeds). */
  private confirm(pi: Obj, offSession: boolean, returnUrl: string | null, ok: (o: Obj) => Answer): Answer {
    const outcome = this.outcomes.get(pi.payment_method as string) ?? 'succeeds';
    pi.next_action = null;
    pi.last_payment_error = null;
    if (outcome === 'succeeds') return ok(this.succeed(pi));
    if (outcome === 'authentication_required' && !offSession) {
      const page = `${this.apiBase}/fake/authenticate/${pi.id}`;
      pi.status = 'requires_action';
      pi.next_action = returnUrl
        ? { type: 'redirect_to_url', redirect_to_url: { url: page, return_url: returnUrl } }
        : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: page } };
      this.emit('payment_intent.requires_action', pi);
      return ok(pi);
    }
    const decline = DECLINES[outcome];
    const charge = this.newCharge(pi, 'failed', decline);
    const error = {
      type: 'card_error',
      ...decline,
      charge: charge.id,
      doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
      payment_method: this.paymentMethods.get(pi.payment_method as string),
    };
    Object.assign(pi, { status: 'requires_payment_method', latest_charge: charge.id, last_payment_error: error });
    this.emit('payment_intent.payment_failed', pi);
    return { status: 402, body: JSON.stringify({ error: { ...error, payment_intent: pi } }) };
  }

  private succeed(pi: Obj): Obj {
    const charge = this.newCharge(pi, 'succeeded', null);
    Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, latest_charge: charge.id });
    this.emit('payment_intent.succeeded', pi);
    return pi;
  }

  private newCharge(pi: Obj, status: 'succeeded' | 'failed', decline: { code: string; message: string } | null): Obj {
    const charge = {
      id: this.id('ch'),
      object: 'charge',
      amount: pi.amount,
      amount_captured: status === 'succeeded' ? pi.amount : 0,
      amount_refunded: 0,
      captured: status === 'succeeded',
      paid: status === 'succeeded',
      refunded: false,
      disputed: false,
      status,
      currency: pi.currency,
      customer: pi.customer,
      payment_intent: pi.id,
      payment_method: pi.payment_method,
      metadata: pi.metadata,
      failure_code: decline?.code ?? null,
      failure_message: decline?.message ?? null,
      created: this.seconds(),
      livemode: false,
    };
    this.charges.set(charge.id, charge);
    return charge;
  }

  private createRefund(p: Obj): Obj {
    if (!p.payment_intent && !p.charge) throw missing('payment_intent');
    const pi = p.payment_intent ? this.find(this.paymentIntents, 'payment_intent', p.payment_intent as string, 'payment_intent') : null;
    const charge = p.charge ? this.find(this.charges, 'charge', p.charge as string, 'charge') : this.charges.get(pi!.latest_charge as string);
    if (!charge || charge.status !== 'succeeded') {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        message: `This PaymentIntent (${pi?.id ?? charge?.payment_intent}) does not have a successful charge to refund.`,
      });
    }
    const left = (charge.amount_captured as number) - (charge.amount_refunded as number);
    if (left === 0) {
      throw new Refusal(400, { type: 'invalid_request_error', code: 'charge_already_refunded', message: `Charge ${charge.id} has already been refunded.` });
    }
    const amount = this.amountParam(p.amount, 'amount', false) ?? left;
    if (amount > left) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        code: 'amount_too_large',
        param: 'amount',
        message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
      });
    }
    const refund = {
      id: this.id('re'),
      object: 'refund',
      amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      metadata: p.metadata ?? {},
      reason: p.reason ?? null,
      status: 'succeeded',
      created: this.seconds(),
    };
    this.refunds.set(refund.id, refund);
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    this.emit('charge.refunded', charge);
    return refund;
  }

  /** A positive integer parameter (Stripe's amounts), or undefined when optional and absent. */
  private amountParam(value: unknown, param: string, required: boolean): number | undefined {
    if (value === undefined && !required) return undefined;
    if (value === undefined) throw missing(param);
    if (typeof value !== 'string' || !/^[1-9]\d{0,15}$/.test(value)) {
      throw new Refusal(400, {
        type: 'invalid_request_error',
        code: 'parameter_invalid_integer',
        param,
        message: `Invalid positive integer: ${JSON.stringify(value)}`,
      });
    }
    return Number(value);
  }

  // --- Events ----------------------------------------------------------------------------------

  private emit(type: string, object: Obj): void {
    const event = {
      id: this.id('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: this.seconds(),
      data: { object: structuredClone(object) }, // as it was then: a late delivery carries an old state
      livemode: false,
      pending_webhooks: 1,
      request: { ...this.cause },
      type,
    };
    this.events.push(event);
    this.pending.push(event);
    if (this.autoDeliver && (this.webhook || this.webhookTargets)) this.delivering = this.delivering.then(() => this.deliverWebhooks());
  }

  private async post(event: Obj): Promise<Delivery> {
    if (!this.webhook && this.webhookTargets) {
      const targets = await this.webhookTargets().catch(() => []);
      let last: Delivery = { eventId: event.id as string, type: event.type as string, status: 'unreachable' };
      for (const target of targets) last = await this.postTo(event, target.url, target.secret);
      return last;
    }
    if (!this.webhook) throw new Error('The Stripe fake has no webhook endpoint: setWebhookEndpoint(url, secret) first');
    return this.postTo(event, this.webhook.url, this.webhook.secret);
  }

  private async postTo(event: Obj, url: string, secret: string): Promise<Delivery> {
    const payload = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(this.now() / 1000) });
    const status = await new Promise<number | 'unreachable'>((resolve) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          agent: false, // one connection per delivery, closed after: nothing keeps the test process alive
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'stripe-signature': header,
            'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve('unreachable'));
      req.end(payload);
    });
    const delivery = { eventId: event.id as string, type: event.type as string, status };
    this.deliveries.push(delivery);
    return delivery;
  }

  // --- Pages for browsers (the development profile) --------------------------------------------

  private page(method: string, path: string, form: URLSearchParams, res: http.ServerResponse): void {
    const [, kind, id] = /^\/fake\/(checkout|authenticate)\/([^/]+)$/.exec(path) ?? [];
    const html = (body: string): void => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><meta charset="utf-8"><title>Stripe fake (test only)</title><body>${body}</body>`);
    };
    const redirect = (to: string): void => {
      res.writeHead(303, { location: to });
      res.end();
    };
    if (kind === 'checkout' && this.checkoutSessions.has(id!)) {
      const session = this.checkoutSessions.get(id!)!;
      if (method !== 'POST') {
        const options = Object.keys(TEST_CARDS).map((c) => `<option>${c}</option>`);
        return html(
          (session.mode === 'payment'
            ? `<h1>Pay ${session.amount_total} ${session.currency} (Stripe fake)</h1><form method="post"><select name="card">${options.join('')}</select> <button>Pay</button></form>`
            : `<h1>Add a card (Stripe fake)</h1><form method="post"><select name="card">${options.join('')}</select> <button>Save card</button></form>`) +
            (session.cancel_url ? `<p><a href="${session.cancel_url}">Cancel</a></p>` : ''),
        );
      }
      const card = (form.get('card') ?? 'pm_card_visa') in TEST_CARDS ? (form.get('card') as TestCard) : 'pm_card_visa';
      if (session.mode === 'payment') {
        const pi = this.payCheckoutSession(id!, card);
        if (pi.status !== 'succeeded')
          return html(`<h1>Declined (Stripe fake)</h1><p>${pi.last_payment_error?.code ?? pi.status}</p><p><a href="${session.url}">Try another card</a></p>`);
      } else {
        this.completeSetupSession(id!, card);
      }
      return redirect(String(session.success_url).replace('{CHECKOUT_SESSION_ID}', id!));
    }
    if (kind === 'authenticate' && this.paymentIntents.has(id!)) {
      const pi = this.paymentIntents.get(id!)!;
      if (method !== 'POST') {
        return html(
          `<h1>3-D Secure (Stripe fake)</h1><form method="post"><button name="outcome" value="succeed">Complete</button> <button name="outcome" value="fail">Fail</button></form>`,
        );
      }
      const returnUrl = pi.next_action?.redirect_to_url?.return_url as string | undefined;
      const outcome = form.get('outcome') === 'fail' ? 'fail' : 'succeed';
      this.completeAuthentication(id!, outcome);
      const back = new URL(returnUrl ?? this.apiBase);
      back.searchParams.set('payment_intent', id!);
      back.searchParams.set('redirect_status', outcome === 'succeed' ? 'succeeded' : 'failed');
      return redirect(back.toString());
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found');
  }

  // --- Small things ----------------------------------------------------------------------------

  private id(prefix: string): string {
    return `${prefix}_fake${String(++this.seq).padStart(10, '0')}`;
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private find(map: Map<string, Obj>, noun: string, id: string, param = 'id'): Obj {
    const found = map.get(id);
    if (!found) throw new Refusal(404, { type: 'invalid_request_error', code: 'resource_missing', param, message: `No such ${noun}: '${id}'` });
    return found;
  }

  private mustFind(map: Map<string, Obj>, id: string): Obj {
    const found = map.get(id);
    if (!found) throw new Error(`The Stripe fake has no ${id}`);
    return found;
  }

  /** A copy with `expand` paths ("invoice_settings.default_payment_method", "setup_intent.payment_method") replaced by their objects. */
  private expanded(object: Obj, expand: unknown): Obj {
    const copy = structuredClone(object);
    for (const path of Array.isArray(expand) ? expand : []) {
      let holder: Obj | null = copy;
      for (const key of String(path).split('.')) {
        if (!holder) break;
        if (typeof holder[key] === 'string') {
          const found = this.byId(holder[key]);
          if (found) holder[key] = structuredClone(found);
        }
        holder = holder[key] !== null && typeof holder[key] === 'object' ? (holder[key] as Obj) : null;
      }
    }
    return copy;
  }

  private byId(id: string): Obj | undefined {
    const maps: Record<string, Map<string, Obj>> = {
      cus: this.customers,
      pm: this.paymentMethods,
      pi: this.paymentIntents,
      ch: this.charges,
      re: this.refunds,
      seti: this.setupIntents,
      cs: this.checkoutSessions,
    };
    return maps[id.split('_')[0]!]?.get(id);
  }
}

/** Stripe's form encoding back to objects: `metadata[a]=1` → { metadata: { a: '1' } }, `expand[0]=x` → { expand: ['x'] }. */
function decodeForm(form: URLSearchParams): Obj {
  const out: Obj = {};
  for (const [name, value] of form) {
    const keys = name.replace(/\]/g, '').split('[');
    if (keys.includes('__proto__')) continue;
    let holder = out;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) holder[key] = value;
      else holder = (holder[key] ??= {}) as Obj;
    });
  }
  return withArrays(out) as Obj;
}

function withArrays(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([k, v]) => [k, withArrays(v)] as const);
  if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  return Object.fromEntries(entries);
}

/** JSON with sorted keys: two requests with the same parameters in another order are the same request. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Obj)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function truthy(value: unknown): boolean {
  return value === 'true' || value === true;
}

function errorAnswer(status: number, error: Obj): Answer {
  return { status, body: JSON.stringify({ error }) };
}

/** As Stripe shows a wrong key: its first characters and last four, the rest masked. */
function mask(key: string): string {
  if (key === '') return '(none)';
  return key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : '*'.repeat(key.length);
}
