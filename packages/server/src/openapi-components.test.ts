import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hoistNamedSchemas, SchemaNameClash } from './openapi-components.js';

const customer = (extra: Record<string, unknown> = {}) => ({
  title: 'Customer',
  type: 'object',
  properties: { id: { type: 'string' }, ...extra },
});
const documentWith = (...schemas: object[]) => ({
  openapi: '3.1.0',
  paths: Object.fromEntries(
    schemas.map((schema, i) => [`/r${i}`, { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } } }]),
  ),
});
const schemaAt = (doc: any, i: number) => doc.paths[`/r${i}`].get.responses['200'].content['application/json'].schema;

describe('hoistNamedSchemas', () => {
  it('lists a titled schema once under components.schemas and refers to it from every place', () => {
    const doc: any = hoistNamedSchemas(documentWith(customer(), { type: 'array', items: customer() }));
    assert.deepEqual(doc.components.schemas.Customer, customer());
    assert.deepEqual(schemaAt(doc, 0), { $ref: '#/components/schemas/Customer' });
    assert.deepEqual(schemaAt(doc, 1).items, { $ref: '#/components/schemas/Customer' });
  });

  it('keeps a place’s own description beside the $ref', () => {
    const doc: any = hoistNamedSchemas(documentWith(customer(), { ...customer(), description: 'The customer that paid.' }));
    assert.deepEqual(schemaAt(doc, 1), { $ref: '#/components/schemas/Customer', description: 'The customer that paid.' });
  });

  it('refuses two different shapes under one name, naming it', () => {
    assert.throws(
      () => hoistNamedSchemas(documentWith(customer(), customer({ email: { type: 'string' } }))),
      (e: unknown) => {
        assert.ok(e instanceof SchemaNameClash);
        assert.match(e.message, /named Customer/);
        return true;
      },
    );
  });

  it('leaves titles inside examples alone', () => {
    const example = { title: 'Book', pages: 3 };
    const doc: any = hoistNamedSchemas(documentWith({ type: 'object', example }));
    assert.deepEqual(schemaAt(doc, 0).example, example);
    assert.deepEqual(doc.components.schemas, {});
  });
});
