import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreateProductBody, ProductSchema, presentProduct, productKinds, UpdateProductBody } from './product.js';
import { findProduct, listProducts } from './product.repository.js';
import { createProduct } from './create-product.js';
import { updateProduct } from './update-product.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Products'];

export async function productRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/products', {
    config: admin,
    schema: {
      operationId: 'createProduct',
      summary: 'Create a product',
      description: 'A product is what a subscription grants access to; its key is what entitlement checks and usage events name.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateProductBody,
      response: { 200: ProductSchema, ...errors(403, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentProduct(await createProduct(tx, req.ctx, req.body))),
  });

  app.get('/api/v1/products', {
    config: admin,
    schema: {
      operationId: 'listProducts',
      summary: 'List products, newest first',
      description: "Products of the key's environment, newest first, with cursor pagination.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery, kind: Type.Optional(Type.Union(productKinds.map((k) => Type.Literal(k)))) }, { additionalProperties: false }),
      response: { 200: ListOf(ProductSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listProducts(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentProduct), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/products/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveProduct',
      summary: 'Retrieve a product',
      description: "One product by its id (prod_…), in the key's environment.",
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ProductSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const p = await findProduct(deps.db, req.ctx, req.params.id);
      if (!p) throw notFound('product', req.params.id);
      return presentProduct(p);
    },
  });

  app.patch('/api/v1/products/:id', {
    config: admin,
    schema: {
      operationId: 'updateProduct',
      summary: 'Update a product',
      description: 'name, description and metadata can change; kind is fixed at creation.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: UpdateProductBody,
      response: { 200: ProductSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentProduct(await updateProduct(deps, req.ctx, req.params.id, req.body)),
  });
}
