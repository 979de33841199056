import type { paths } from './generated/openapi.js';
import type { BodyOf, QueryOf, ResultOf } from './api-types.js';
import type { HttpClient } from './http-client.js';

/** Options of a create the server makes idempotent (Idempotency-Key): without one the SDK makes one, so a lost answer is retried safely. */
export interface CreateOptions {
  idempotencyKey?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

const at = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));

/**
 * The operator API users script most, typed from the generated paths: thin wrappers, each one
 * request. Errors are TollgateError; retries follow the spec (retry-policy.ts).
 */
export class OperatorApi {
  constructor(
    protected readonly http: HttpClient,
    protected readonly randomUUID: () => string,
  ) {}

  private get<P extends keyof paths>(template: P, id?: string, query?: object) {
    return this.http.request<ResultOf<P, 'get'>>({ method: 'GET', path: id === undefined ? template : at(template, id), query: query as Query | undefined });
  }

  private post<P extends keyof paths>(template: P, id: string | undefined, body: unknown, idempotencyKey?: string | null) {
    return this.http.request<ResultOf<P, 'post'>>({
      method: 'POST',
      path: id === undefined ? template : at(template, id),
      body,
      idempotency: idempotencyKey ? { header: 'Idempotency-Key', key: idempotencyKey } : undefined,
    });
  }

  private key(opts: CreateOptions | undefined): string {
    return opts?.idempotencyKey ?? this.randomUUID();
  }

  readonly customers = {
    create: (body: BodyOf<'/api/v1/customers', 'post'>, opts?: CreateOptions) => this.post('/api/v1/customers', undefined, body, this.key(opts)),
    list: (query: QueryOf<'/api/v1/customers', 'get'> = {}) => this.get('/api/v1/customers', undefined, query),
    get: (id: string) => this.get('/api/v1/customers/{id}', id),
  };

  readonly subscriptions = {
    create: (body: BodyOf<'/api/v1/subscriptions', 'post'>, opts?: CreateOptions) => this.post('/api/v1/subscriptions', undefined, body, this.key(opts)),
    list: (query: QueryOf<'/api/v1/subscriptions', 'get'> = {}) => this.get('/api/v1/subscriptions', undefined, query),
    get: (id: string) => this.get('/api/v1/subscriptions/{id}', id),
    cancel: (id: string, body: BodyOf<'/api/v1/subscriptions/{id}/cancel', 'post'>, opts?: CreateOptions) =>
      this.post('/api/v1/subscriptions/{id}/cancel', id, body, this.key(opts)),
    /** Read-only: what a change would bill now and at renewal. */
    previewChange: (id: string, body: BodyOf<'/api/v1/subscriptions/{id}/preview-change', 'post'>) =>
      this.post('/api/v1/subscriptions/{id}/preview-change', id, body, null),
    upgrade: (id: string, body: BodyOf<'/api/v1/subscriptions/{id}/upgrade', 'post'>, opts?: CreateOptions) =>
      this.post('/api/v1/subscriptions/{id}/upgrade', id, body, this.key(opts)),
  };

  /** Keys are not idempotent on the server (a secret is shown once): a lost answer is not retried. */
  readonly apiKeys = {
    create: (body: BodyOf<'/api/v1/api-keys', 'post'>) => this.post('/api/v1/api-keys', undefined, body, null),
    rotate: (id: string) => this.post('/api/v1/api-keys/{id}/rotate', id, undefined, null),
    revoke: (id: string) => this.http.request<ResultOf<'/api/v1/api-keys/{id}', 'delete'>>({ method: 'DELETE', path: at('/api/v1/api-keys/{id}', id) }),
  };

  readonly usage = {
    /** GET /api/v1/usage: exact sums per customer and metric over a time range. */
    report: (query: QueryOf<'/api/v1/usage', 'get'> = {}) => this.get('/api/v1/usage', undefined, query),
  };

  readonly invoices = {
    list: (query: QueryOf<'/api/v1/invoices', 'get'> = {}) => this.get('/api/v1/invoices', undefined, query),
    get: (id: string) => this.get('/api/v1/invoices/{id}', id),
    /** Records money that arrived outside Tollgate (a bank transfer); the payment that leaves nothing owed marks the invoice paid. */
    recordPayment: (id: string, body: BodyOf<'/api/v1/invoices/{id}/payments', 'post'>, opts?: CreateOptions) =>
      this.post('/api/v1/invoices/{id}/payments', id, body, this.key(opts)),
    /** Its payments and payment attempts, oldest first. */
    payments: (id: string) => this.get('/api/v1/invoices/{id}/payments', id),
    /**
     * Charges what it still owes now through the connected Stripe account (retry now): the attempt,
     * with the invoice. Not keyed: each call that gets through is a new attempt, so a lost answer is not retried.
     */
    attemptPayment: (id: string, body: BodyOf<'/api/v1/invoices/{id}/attempt_payment', 'post'> = {}) =>
      this.post('/api/v1/invoices/{id}/attempt_payment', id, body, null),
  };

  /** Prepaid credits (docs/credits.md): grants, their void, a customer's ledger, balance and credit settings. */
  readonly credits = {
    /** A grant (promotional or adjustment: active at once), or a purchase (source purchased: pending until its invoice is paid). */
    grant: (body: BodyOf<'/api/v1/credit_grants', 'post'>, opts?: CreateOptions) => this.post('/api/v1/credit_grants', undefined, body, this.key(opts)),
    listGrants: (query: QueryOf<'/api/v1/credit_grants', 'get'> = {}) => this.get('/api/v1/credit_grants', undefined, query),
    getGrant: (id: string) => this.get('/api/v1/credit_grants/{id}', id),
    /** Voids what is left (what was drawn stays drawn); a second void is a 409, so a lost answer is not retried. */
    voidGrant: (id: string) => this.post('/api/v1/credit_grants/{id}/void', id, undefined, null),
    /** The customer's ledger, newest first, paged by cursor (startingAfter). */
    ledger: (customerId: string, query: QueryOf<'/api/v1/customers/{id}/credit_ledger', 'get'> = {}) =>
      this.get('/api/v1/customers/{id}/credit_ledger', customerId, query),
    balance: (customerId: string) => this.get('/api/v1/customers/{id}/credit_balance', customerId),
    settings: (customerId: string) => this.get('/api/v1/customers/{id}/credit_settings', customerId),
    /** The low-balance alert and the automatic top-up in one currency; replaces what was set. */
    putSettings: (customerId: string, currency: string, body: BodyOf<'/api/v1/customers/{id}/credit_settings/{currency}', 'put'>) =>
      this.http.request<ResultOf<'/api/v1/customers/{id}/credit_settings/{currency}', 'put'>>({
        method: 'PUT',
        path: at('/api/v1/customers/{id}/credit_settings/{currency}', customerId).replace('{currency}', encodeURIComponent(currency)),
        body,
      }),
  };
}
