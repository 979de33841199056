import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreateCustomerBody, CustomerRefParams, CustomerSchema, presentCustomer, UpdateCustomerBody } from './customer.js';
import { listCustomers } from './customer.repository.js';
import { requireCustomerByRef } from './customer-refs.js';
import { createCustomer } from './create-customer.js';
import { updateCustomer } from './update-customer.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Customers'];

export async function customerRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/customers', {
    config: admin,
    schema: {
      operationId: 'createCustomer',
      summary: 'Create a customer',
      description: 'A customer is whoever you bill: give it your own externalId to find it again. Test-environment customers may live on a test clock.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateCustomerBody,
      response: { 200: CustomerSchema, ...errors(403, 409, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentCustomer(await createCustomer(tx, req.ctx, req.body))),
  });

  app.get('/api/v1/customers', {
    config: admin,
    schema: {
      operationId: 'listCustomers',
      summary: 'List customers, newest first',
      description: "Customers of the key's environment, newest first, with cursor pagination; externalId finds one customer by your own id.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery, externalId: Type.Optional(Type.String({ maxLength: 255 })) }, { additionalProperties: false }),
      response: { 200: ListOf(CustomerSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listCustomers(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentCustomer), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/customers/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveCustomer',
      summary: 'Retrieve a customer',
      description:
        "One customer of the key's environment, named by its cus_ id or by the externalId you gave it (an id match wins); the answer carries its cus_ id. 404 on path.id when it names nobody here.",
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      response: { 200: CustomerSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentCustomer(await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id')),
  });

  app.patch('/api/v1/customers/:id', {
    config: admin,
    schema: {
      operationId: 'updateCustomer',
      summary: 'Update a customer',
      description:
        'Fields present replace the stored ones; null clears a field; absent fields are kept. The customer is named by its cus_ id or by the externalId you gave it (an id match wins); the answer carries its cus_ id. 404 on path.id when it names nobody here.',
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      body: UpdateCustomerBody,
      response: { 200: CustomerSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentCustomer(await updateCustomer(deps, req.ctx, req.params.id, req.body)),
  });
}
