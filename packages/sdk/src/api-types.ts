import type { paths } from './generated/openapi.js';

/**
 * Request and response types of one operation, read off the generated `paths` (from the served
 * OpenAPI document): nothing here is written by hand but the plumbing.
 */
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type BodyOf<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;
export type QueryOf<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
export type ResultOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? (R extends { 200: infer A } ? JsonOf<A> : R extends { 201: infer B } ? JsonOf<B> : undefined) : never;

export type EntitlementCheck = ResultOf<'/v1/entitlements/check', 'get'>;
export type UsageLimitState = EntitlementCheck['limits'][number];
export type IngestResult = ResultOf<'/v1/ingest/batch', 'post'>;

export type Customer = ResultOf<'/api/v1/customers/{id}', 'get'>;
export type CreateCustomer = BodyOf<'/api/v1/customers', 'post'>;
export type ListCustomers = QueryOf<'/api/v1/customers', 'get'>;
export type Subscription = ResultOf<'/api/v1/subscriptions/{id}', 'get'>;
export type CreateSubscription = BodyOf<'/api/v1/subscriptions', 'post'>;
export type ListSubscriptions = QueryOf<'/api/v1/subscriptions', 'get'>;
export type CancelSubscription = BodyOf<'/api/v1/subscriptions/{id}/cancel', 'post'>;
export type PreviewChange = BodyOf<'/api/v1/subscriptions/{id}/preview-change', 'post'>;
export type Upgrade = BodyOf<'/api/v1/subscriptions/{id}/upgrade', 'post'>;
export type CreateApiKey = BodyOf<'/api/v1/api-keys', 'post'>;
export type UsageReportQuery = QueryOf<'/api/v1/usage', 'get'>;
export type ListInvoices = QueryOf<'/api/v1/invoices', 'get'>;

export type CreditGrant = ResultOf<'/api/v1/credit_grants/{id}', 'get'>;
export type CreateCreditGrant = BodyOf<'/api/v1/credit_grants', 'post'>;
export type ListCreditGrants = QueryOf<'/api/v1/credit_grants', 'get'>;
export type CreditLedgerQuery = QueryOf<'/api/v1/customers/{id}/credit_ledger', 'get'>;
export type CreditSettings = ResultOf<'/api/v1/customers/{id}/credit_settings/{currency}', 'put'>;
export type PutCreditSettings = BodyOf<'/api/v1/customers/{id}/credit_settings/{currency}', 'put'>;
