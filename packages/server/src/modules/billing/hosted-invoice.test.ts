import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateEncryptionKey, SecretBox } from '../../lib/secret-box.js';
import { hostedInvoiceToken, hostedInvoiceUrl, readHostedInvoiceToken } from './hosted-invoice.js';

const k1 = generateEncryptionKey('k1');
const k2 = generateEncryptionKey('k2');
const box = new SecretBox([k1]);
const tenant = { workspaceId: 'ws_01abc', environment: 'test' as const };
const token = hostedInvoiceToken(box, tenant, 'inv_01xyz');
const [ws, env, inv, tag] = token.split('.') as [string, string, string, string];

describe('the payment page token', () => {
  it('names the workspace, the environment and the invoice, with a 22-character tag', () => {
    assert.match(token, /^ws_01abc\.t\.inv_01xyz\.[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(readHostedInvoiceToken(box, token), { ...tenant, invoiceId: 'inv_01xyz' });
    assert.match(hostedInvoiceToken(box, { ...tenant, environment: 'live' }, 'inv_01xyz'), /^ws_01abc\.l\.inv_01xyz\./);
  });

  const flip = (c: string) => (c === 'A' ? 'B' : 'A');
  const cases: Array<[string, string]> = [
    ['another invoice with this tag', `${ws}.${env}.inv_other.${tag}`],
    ['another workspace with this tag', `ws_other.${env}.${inv}.${tag}`],
    ['the live environment with the test tag', `${ws}.l.${inv}.${tag}`],
    ['an unknown environment letter', `${ws}.x.${inv}.${tag}`],
    ['one character of the tag changed', `${ws}.${env}.${inv}.${tag.slice(0, -1)}${flip(tag.slice(-1))}`],
    ['a shortened tag', `${ws}.${env}.${inv}.${tag.slice(0, -1)}`],
    ['a lengthened tag', `${ws}.${env}.${inv}.${tag}A`],
    ['no tag', `${ws}.${env}.${inv}`],
    ['an extra part', `${ws}.${env}.${inv}.x.${tag}`],
    ['empty ids', `.${env}..${tag}`],
    ['not a token', 'hello'],
    ['empty', ''],
    ['over 100 characters', `${ws}.${env}.${'i'.repeat(80)}.${tag}`],
  ];
  for (const [name, bad] of cases) {
    it(`refuses ${name}`, () => assert.equal(readHostedInvoiceToken(box, bad), null));
  }

  it('a token made before a key rotation still opens while the old key is configured, and not once it is gone', () => {
    const rotated = new SecretBox([k2, k1]);
    assert.deepEqual(readHostedInvoiceToken(rotated, token), { ...tenant, invoiceId: 'inv_01xyz' });
    assert.notEqual(hostedInvoiceToken(rotated, tenant, 'inv_01xyz'), token, 'new addresses use the new key');
    assert.equal(readHostedInvoiceToken(new SecretBox([k2]), token), null);
  });

  it('a tag made for another purpose never passes', () => {
    const body = `${ws}.${env}.${inv}`;
    assert.equal(readHostedInvoiceToken(box, `${body}.${box.mac('something else', body, 22)}`), null);
  });

  it('the address: PUBLIC_URL, else this machine on its port; none for a draft or a void invoice', () => {
    const links = (publicUrl: string | null) => ({ config: { publicUrl, port: 8080 }, secrets: box });
    assert.equal(
      hostedInvoiceUrl(links('https://billing.example.com'), tenant, { id: 'inv_01xyz', status: 'finalized' }),
      `https://billing.example.com/pay/${token}`,
    );
    assert.equal(hostedInvoiceUrl(links(null), tenant, { id: 'inv_01xyz', status: 'paid' }), `http://localhost:8080/pay/${token}`);
    assert.equal(hostedInvoiceUrl(links(null), tenant, { id: 'inv_01xyz', status: 'uncollectible' }), `http://localhost:8080/pay/${token}`);
    assert.equal(hostedInvoiceUrl(links(null), tenant, { id: 'inv_01xyz', status: 'draft' }), null);
    assert.equal(hostedInvoiceUrl(links(null), tenant, { id: 'inv_01xyz', status: 'void' }), null);
  });
});
