/**
 * A storefront's draft as the console's form holds it (every input as the text typed), the
 * request body it sends, and the API's field errors mapped back to the inputs. The API lists
 * display settings only for the offerings that have some, so its error paths count entries of
 * that list (`body.offeringDisplay.0.callToAction.url`); the form's inputs are per offering
 * (`offeringDisplay.off_1.callToAction.url`), which stay put while the seller edits. Pure.
 */
import type { ApiProblem, FormErrors } from './errors.js';
import { formErrors } from './errors.js';

export interface CallToAction {
  label: string;
  url: string;
}

export interface OfferingDisplaySettings {
  offeringId: string;
  highlighted: boolean;
  callToAction: CallToAction | null;
}

/** The seller's look for the hosted page; a field not set is absent. */
export interface StorefrontTheme {
  accentColor?: string;
  backgroundColor?: string;
  fontFamily?: string;
  logoUrl?: string;
}

/** A storefront as the API answers it. */
export interface StorefrontRecord {
  id: string;
  name: string;
  draft: { offeringIds: string[]; offeringDisplay: OfferingDisplaySettings[]; theme: StorefrontTheme };
  published: { offeringIds: string[]; offeringDisplay: OfferingDisplaySettings[]; theme: StorefrontTheme; version: number; publishedAt: string } | null;
  hasUnpublishedChanges: boolean;
  pricingPagePath: string;
}

/** One offering's settings as typed. An empty label and URL: no call to action. */
export interface OfferingDisplayDraft {
  highlighted: boolean;
  ctaLabel: string;
  ctaUrl: string;
}

export const THEME_FIELDS = ['accentColor', 'backgroundColor', 'fontFamily', 'logoUrl'] as const;
export type ThemeField = (typeof THEME_FIELDS)[number];

export interface StorefrontDraft {
  /** Empty: a new storefront. */
  id: string;
  name: string;
  offeringIds: string[];
  /**
   * By offering id. Kept for an offering taken off the list, so ticking it again brings its
   * settings back; only the listed offerings' are sent.
   */
  display: Record<string, OfferingDisplayDraft>;
  theme: Record<ThemeField, string>;
}

const EMPTY_THEME: Record<ThemeField, string> = { accentColor: '', backgroundColor: '', fontFamily: '', logoUrl: '' };

export const emptyOfferingDisplay = (): OfferingDisplayDraft => ({ highlighted: false, ctaLabel: '', ctaUrl: '' });

export const newStorefrontDraft = (): StorefrontDraft => ({ id: '', name: '', offeringIds: [], display: {}, theme: { ...EMPTY_THEME } });

/** The form of a stored storefront's draft. */
export function storefrontDraftOf(s: StorefrontRecord): StorefrontDraft {
  const display: Record<string, OfferingDisplayDraft> = {};
  for (const o of s.draft.offeringDisplay)
    display[o.offeringId] = { highlighted: o.highlighted, ctaLabel: o.callToAction?.label ?? '', ctaUrl: o.callToAction?.url ?? '' };
  const theme = { ...EMPTY_THEME };
  for (const k of THEME_FIELDS) theme[k] = s.draft.theme[k] ?? '';
  return { id: s.id, name: s.name, offeringIds: [...s.draft.offeringIds], display, theme };
}

/** The display input of an offering: `offeringDisplay.<offeringId>.<field>`. */
export const displayInput = (offeringId: string, field: 'highlighted' | 'callToAction' | 'callToAction.label' | 'callToAction.url') =>
  `offeringDisplay.${offeringId}.${field}`;

export const themeInput = (field: ThemeField) => `theme.${field}`;

export interface StorefrontBody {
  name: string;
  offeringIds: string[];
  offeringDisplay: Array<{ offeringId: string; highlighted: boolean; callToAction: CallToAction | null }>;
  theme: StorefrontTheme;
}

/**
 * The POST or PATCH body: entries only for listed offerings with a call to action or a highlight,
 * in the list's order; a call to action when either of its fields is typed (both sent as typed,
 * so the API names the one missing); the theme without its empty fields. offeringDisplay and theme
 * replace the stored ones whole, so clearing a field here clears it there.
 */
export function storefrontBody(d: StorefrontDraft): StorefrontBody {
  const offeringDisplay: StorefrontBody['offeringDisplay'] = [];
  for (const offeringId of d.offeringIds) {
    const o = d.display[offeringId];
    if (!o) continue;
    const label = o.ctaLabel.trim();
    const url = o.ctaUrl.trim();
    const callToAction = label === '' && url === '' ? null : { label, url };
    if (o.highlighted || callToAction) offeringDisplay.push({ offeringId, highlighted: o.highlighted, callToAction });
  }
  const theme: StorefrontTheme = {};
  for (const k of THEME_FIELDS) {
    const v = d.theme[k].trim();
    if (v !== '') theme[k] = v;
  }
  return { name: d.name.trim(), offeringIds: d.offeringIds, offeringDisplay, theme };
}

/** The inputs of the form, as the remapped errors name them. */
export function storefrontInputs(d: StorefrontDraft): string[] {
  const out = ['name', 'offeringIds', ...Array.from({ length: 12 }, (_, i) => `offeringIds.${i}`), 'offeringDisplay', 'theme'];
  for (const id of d.offeringIds)
    out.push(...(['highlighted', 'callToAction', 'callToAction.label', 'callToAction.url'] as const).map((f) => displayInput(id, f)));
  out.push(...THEME_FIELDS.map(themeInput));
  return out;
}

/**
 * An error field of the body sent, with its display entry's index replaced by that entry's
 * offering id: `body.offeringDisplay.1.callToAction.url` -> `body.offeringDisplay.off_2.callToAction.url`.
 * `sent` is the body the errors answer (the form may have changed since).
 */
export function fieldForInput(field: string | undefined, sent: Pick<StorefrontBody, 'offeringDisplay'>): string | undefined {
  if (field === undefined) return undefined;
  const m = /^body\.offeringDisplay\.(\d+)(\..+)?$/.exec(field);
  const entry = m ? sent.offeringDisplay[Number(m[1])] : undefined;
  if (!m || !entry) return field;
  return `body.offeringDisplay.${entry.offeringId}${m[2] ?? ''}`;
}

/**
 * The problem's errors by input. A call to action is "an object or null" to the API, which, when
 * the object is wrong, also says it "must be of type null": an error about a field whose own fields
 * have errors is dropped, the specific ones say what to fix.
 */
export function storefrontErrors(problem: ApiProblem | null, sent: Pick<StorefrontBody, 'offeringDisplay'> | null, inputs: readonly string[]): FormErrors {
  if (!problem || !sent) return formErrors(problem, inputs);
  const mapped = problem.errors.map((e) => ({ ...e, field: fieldForInput(e.field, sent) }));
  const specific = mapped.filter((e) => e.field === undefined || !mapped.some((o) => o.field !== undefined && o.field.startsWith(`${e.field}.`)));
  return formErrors({ ...problem, errors: specific }, inputs);
}

/** "#1e40af" for the colour picker: the text when it is a colour, else the page's own colour. */
export function pickerValue(text: string, fallback: string): string {
  const t = text.trim();
  return /^#[0-9a-fA-F]{6}$/.test(t) ? t.toLowerCase() : fallback;
}
