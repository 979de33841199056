import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiProblem } from '../src/errors.js';
import {
  fieldForInput,
  newStorefrontDraft,
  pickerValue,
  storefrontBody,
  storefrontDraftOf,
  storefrontErrors,
  storefrontInputs,
  type OfferingDisplayDraft,
  type StorefrontDraft,
  type StorefrontRecord,
} from '../src/storefront-form.js';

const shown = (fields: Partial<OfferingDisplayDraft>): OfferingDisplayDraft => ({ highlighted: false, ctaLabel: '', ctaUrl: '', ...fields });
const draft = (fields: Partial<StorefrontDraft>): StorefrontDraft => ({
  ...newStorefrontDraft(),
  name: 'Shop',
  offeringIds: ['off_1', 'off_2', 'off_3'],
  ...fields,
});

describe('storefrontBody: display entries only for listed offerings with a call to action or a highlight', () => {
  const cases: Array<[string, Partial<StorefrontDraft>, unknown[]]> = [
    ['nothing set', {}, []],
    ['a highlight', { display: { off_2: shown({ highlighted: true }) } }, [{ offeringId: 'off_2', highlighted: true, callToAction: null }]],
    [
      'a call to action, trimmed',
      { display: { off_1: shown({ ctaLabel: ' Start ', ctaUrl: ' https://shop.example/signup ' }) } },
      [{ offeringId: 'off_1', highlighted: false, callToAction: { label: 'Start', url: 'https://shop.example/signup' } }],
    ],
    [
      'a label without a URL is sent as typed, so the API names the URL',
      { display: { off_1: shown({ ctaLabel: 'Start' }) } },
      [{ offeringId: 'off_1', highlighted: false, callToAction: { label: 'Start', url: '' } }],
    ],
    ['blank fields are no call to action', { display: { off_1: shown({ ctaLabel: ' ', ctaUrl: '' }) } }, []],
    [
      "in the list's order, not the settings'",
      { offeringIds: ['off_3', 'off_1'], display: { off_1: shown({ highlighted: true }), off_3: shown({ highlighted: true }) } },
      [
        { offeringId: 'off_3', highlighted: true, callToAction: null },
        { offeringId: 'off_1', highlighted: true, callToAction: null },
      ],
    ],
    [
      'an offering taken off the list keeps its settings in the form, but they are not sent',
      { offeringIds: ['off_1'], display: { off_2: shown({ highlighted: true }) } },
      [],
    ],
  ];
  for (const [what, fields, want] of cases) it(what, () => assert.deepEqual(storefrontBody(draft(fields)).offeringDisplay, want));
});

describe('storefrontBody: the theme without its empty fields', () => {
  const cases: Array<[Partial<StorefrontDraft['theme']>, unknown]> = [
    [{}, {}],
    [{ accentColor: '#4F46E5' }, { accentColor: '#4F46E5' }],
    [{ accentColor: ' ', fontFamily: ' Inter ' }, { fontFamily: 'Inter' }],
    [
      { backgroundColor: 'red', logoUrl: 'https://shop.example/logo.svg' },
      { backgroundColor: 'red', logoUrl: 'https://shop.example/logo.svg' },
    ],
  ];
  for (const [theme, want] of cases)
    it(JSON.stringify(theme), () => assert.deepEqual(storefrontBody(draft({ theme: { ...newStorefrontDraft().theme, ...theme } })).theme, want));
  it('the name is trimmed and the list sent as is', () =>
    assert.deepEqual([storefrontBody(draft({ name: ' Shop ' })).name, storefrontBody(draft({})).offeringIds], ['Shop', ['off_1', 'off_2', 'off_3']]));
});

describe('storefrontDraftOf: a stored draft in the form, which sends it back unchanged', () => {
  const record: StorefrontRecord = {
    id: 'sf_1',
    name: 'Shop',
    draft: {
      offeringIds: ['off_1', 'off_2'],
      offeringDisplay: [
        { offeringId: 'off_2', highlighted: true, callToAction: { label: 'Buy', url: 'https://shop.example/buy' } },
        { offeringId: 'off_1', highlighted: true, callToAction: null },
      ],
      theme: { accentColor: '#112233', logoUrl: 'https://shop.example/logo.png' },
    },
    published: null,
    hasUnpublishedChanges: true,
    pricingPagePath: '/pricing/sf_1',
  };
  it('round trip', () => {
    const body = storefrontBody(storefrontDraftOf(record));
    assert.deepEqual(body, {
      name: 'Shop',
      offeringIds: ['off_1', 'off_2'],
      offeringDisplay: [record.draft.offeringDisplay[1], record.draft.offeringDisplay[0]],
      theme: record.draft.theme,
    });
  });
});

describe('fieldForInput: an error of a display entry names its offering', () => {
  const sent = {
    offeringDisplay: [
      { offeringId: 'off_3', highlighted: false, callToAction: null },
      { offeringId: 'off_1', highlighted: true, callToAction: null },
    ],
  };
  const cases: Array<[string | undefined, string | undefined]> = [
    ['body.offeringDisplay.1.callToAction.url', 'body.offeringDisplay.off_1.callToAction.url'],
    ['body.offeringDisplay.0.callToAction', 'body.offeringDisplay.off_3.callToAction'],
    ['body.offeringDisplay.0', 'body.offeringDisplay.off_3'],
    ['body.offeringDisplay.7.highlighted', 'body.offeringDisplay.7.highlighted'],
    ['body.offeringDisplay', 'body.offeringDisplay'],
    ['body.theme.accentColor', 'body.theme.accentColor'],
    ['body.offeringIds.1', 'body.offeringIds.1'],
    [undefined, undefined],
  ];
  for (const [field, want] of cases) it(`${field} -> ${want}`, () => assert.equal(fieldForInput(field, sent), want));
});

describe('storefrontErrors: each error next to the input it names', () => {
  const d = draft({ offeringIds: ['off_1', 'off_2'] });
  const sent = { offeringDisplay: [{ offeringId: 'off_2', highlighted: false, callToAction: { label: 'Go', url: 'ftp://x' } }] };
  const problem = (...errors: Array<[string | undefined, string]>): ApiProblem => ({
    status: 400,
    retryAfterSeconds: null,
    errors: errors.map(([field, message]) => ({ code: 'VALIDATION_FAILED', message, ...(field === undefined ? {} : { field }) })),
  });
  it('a call to action\'s URL; the union\'s "must be of type null" is dropped', () =>
    assert.deepEqual(
      storefrontErrors(
        problem(['body.offeringDisplay.0.callToAction.url', 'bad url'], ['body.offeringDisplay.0.callToAction', 'must be of type null']),
        sent,
        storefrontInputs(d),
      ),
      { byInput: { 'offeringDisplay.off_2.callToAction.url': ['bad url'] }, general: [] },
    ));
  it('a colour, a logo, and what no input names', () =>
    assert.deepEqual(
      storefrontErrors(
        problem(['body.theme.accentColor', 'bad colour'], ['body.theme.logoUrl', 'bad logo'], [undefined, 'conflict']),
        sent,
        storefrontInputs(d),
      ),
      {
        byInput: { 'theme.accentColor': ['bad colour'], 'theme.logoUrl': ['bad logo'] },
        general: ['conflict'],
      },
    ));
  it('an entry of an offering no longer listed is said above the form', () =>
    assert.deepEqual(
      storefrontErrors(problem(['body.offeringDisplay.0.callToAction.label', 'empty']), sent, storefrontInputs(draft({ offeringIds: ['off_1'] }))),
      { byInput: {}, general: ['empty'] },
    ));
  it('no problem: no errors', () => assert.deepEqual(storefrontErrors(null, null, storefrontInputs(d)), { byInput: {}, general: [] }));
});

describe('pickerValue: what the colour picker shows', () => {
  const cases: Array<[string, string]> = [
    ['#4F46E5', '#4f46e5'],
    [' #112233 ', '#112233'],
    ['', '#1e40af'],
    ['red', '#1e40af'],
    ['#12345', '#1e40af'],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} -> ${want}`, () => assert.equal(pickerValue(text, '#1e40af'), want));
});
