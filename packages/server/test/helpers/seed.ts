import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Deps } from '../../src/deps.js';
import type { App } from '../../src/http/types.js';
import type { Environment } from '../../src/lib/crypto.js';
import type { OperationContext } from '../../src/lib/operation-context.js';
import { createWorkspace } from '../../src/modules/tenancy/create-workspace.js';
import { createCustomer } from '../../src/modules/customers/create-customer.js';
import { createProduct } from '../../src/modules/products/create-product.js';
import { createSubscription } from '../../src/modules/subscriptions/create-subscription.js';
import { subscriptionBilling } from '../../src/modules/billing/open-subscription.js';
import { createApiKey } from '../../src/modules/api-keys/create-api-key.js';
import type { ProductKind } from '../../src/modules/products/product.js';
import type { Scope } from '../../src/lib/principal.js';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  raw: LightMyRequestResponse;
}

export interface EnvHandle {
  workspaceId: string;
  environment: Environment;
  /** A workspace key holding every scope. */
  secretKey: string;
  keyId: string;
  ctx: OperationContext;
}

export interface TenantHandle {
  workspaceId: string;
  test: EnvHandle;
  live: EnvHandle;
}

function parse(res: LightMyRequestResponse): Response {
  let body: unknown = res.body;
  if (String(res.headers['content-type'] ?? '').includes('json') && res.body !== '') body = JSON.parse(res.body);
  return { status: res.statusCode, headers: res.headers, body, raw: res };
}

/** Requests through the real app, with a key, as a client would send them. */
export class Client {
  constructor(
    private readonly app: App,
    private readonly key: string | null,
  ) {}

  async request(method: NonNullable<InjectOptions['method']>, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { ...headers };
    if (this.key) h.authorization = `Bearer ${this.key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    return parse(await this.app.inject({ method, url, headers: h, payload }));
  }
  get(url: string, headers?: Record<string, string>) {
    return this.request('GET', url, undefined, headers);
  }
  post(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', url, body, headers);
  }
  patch(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PATCH', url, body, headers);
  }
  put(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PUT', url, body, headers);
  }
  delete(url: string, headers?: Record<string, string>) {
    return this.request('DELETE', url, undefined, headers);
  }
}

/** Seed helpers: make tenants and resources through the domain operations, fast. */
export class Seeder {
  private n = 0;
  constructor(
    private readonly app: App,
    private readonly deps: Deps,
  ) {}

  client(key: string | null): Client {
    return new Client(this.app, key);
  }

  async workspace(name = 'Test workspace'): Promise<TenantHandle> {
    const created = await createWorkspace(this.deps, {
      name,
      actor: { type: 'OPERATOR', id: 'test' },
      source: 'cli',
      correlationId: 'seed',
    });
    const handle = (environment: Environment): EnvHandle => ({
      workspaceId: created.workspace.id,
      environment,
      secretKey: created.keys[environment].secretKey,
      keyId: created.keys[environment].id,
      ctx: {
        workspaceId: created.workspace.id,
        environment,
        actor: { type: 'OPERATOR', id: 'test' },
        correlationId: 'seed',
        source: 'cli',
      },
    });
    return { workspaceId: created.workspace.id, test: handle('test'), live: handle('live') };
  }

  customer(env: EnvHandle, input: { externalId?: string; name?: string } = {}) {
    return createCustomer(this.deps, env.ctx, { name: `Customer ${++this.n}`, ...input });
  }

  product(env: EnvHandle, kind: ProductKind = 'STANDARD_API') {
    return createProduct(this.deps, env.ctx, { name: `Product ${++this.n}`, kind });
  }

  /** A customer subscribed to a new product of the given kind. */
  async subscription(env: EnvHandle, kind: ProductKind = 'STANDARD_API') {
    const customer = await this.customer(env);
    const product = await this.product(env, kind);
    const subscription = await createSubscription(this.deps, env.ctx, { customerId: customer.id, productId: product.id }, subscriptionBilling);
    return { customer, product, subscription };
  }

  /** A product key bound to a fresh subscription (or the given one). */
  async productKey(env: EnvHandle, subscriptionId?: string) {
    const subId = subscriptionId ?? (await this.subscription(env)).subscription.id;
    const { key, fullToken } = await createApiKey(this.deps, env.ctx, { kind: 'PRODUCT', name: 'customer key', subscriptionId: subId }, null);
    return { id: key.id, token: fullToken, subscriptionId: subId };
  }

  async workspaceKey(env: EnvHandle, scopes: Scope[]) {
    const { key, fullToken } = await createApiKey(this.deps, env.ctx, { kind: 'WORKSPACE', name: 'scoped key', scopes }, null);
    return { id: key.id, token: fullToken };
  }
}
