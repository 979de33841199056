import { html, LitElement, nothing, type TemplateResult } from 'lit';
import {
  CANCEL_REASONS,
  WidgetApi,
  WidgetApiError,
  type ApplyAt,
  type CancelReason,
  type Candidate,
  type ChangeResult,
  type Preview,
  type RetentionOffer,
  type WidgetConfig,
  type WidgetSubscription,
} from './api.js';
import { emit, WIDGET_EVENTS, type WidgetEventName } from './events.js';
import { messages as english, type Messages } from './messages.js';
import { candidatePerMonth, candidatePrepaid, candidatePrice, candidateUnits, dateOf, kindLabel, previewLines, resultLines } from './present.js';
import { styles } from './styles.js';

type Step = 'choose' | 'offer' | 'preview' | 'done';

/**
 * <tollgate-upgrade-cancel>: a buyer upgrades, downgrades or cancels in three steps (choose,
 * review, done) against the widget backend (/v1/widget/*), with the widget session token the
 * seller's backend minted. Props as the spec names them: `mode` (upgrade | cancel),
 * `renderMode` (modal | inline; attribute render-mode), `defaultApplyAt` (IMMEDIATE | PERIOD_END;
 * attribute default-apply-at); plus `token` and `baseUrl` (attribute base-url). Browser events:
 * events.ts; words: messages.ts (set `messages` to translate).
 */
export class TollgateUpgradeCancel extends LitElement {
  static override styles = styles;
  static override properties = {
    mode: { reflect: true },
    renderMode: { attribute: 'render-mode' },
    defaultApplyAt: { attribute: 'default-apply-at' },
    token: {},
    baseUrl: { attribute: 'base-url' },
    messages: { attribute: false },
  };

  declare mode: 'upgrade' | 'cancel';
  declare renderMode: 'modal' | 'inline';
  declare defaultApplyAt: ApplyAt;
  declare token: string;
  declare baseUrl: string;
  declare messages: Partial<Messages>;

  private open = false;
  private step: Step = 'choose';
  private busy = false;
  private error: { text: string; retry: (() => void) | null } | null = null;
  private notice: string | null = null;
  private sub: WidgetSubscription | null = null;
  private config: WidgetConfig | null = null;
  private candidates: Candidate[] = [];
  private selected: string | null = null;
  private reason: CancelReason | null = null;
  private offer: RetentionOffer | null = null;
  private applyAt: ApplyAt = 'IMMEDIATE';
  private preview: Preview | null = null;
  private result: ChangeResult | null = null;
  private offerAccepted = false;
  /** One key per confirmation: a double click or a retry of the same confirmation changes once. */
  private idempotencyKey: string | null = null;
  /** Reasons whose accepted offer was announced: the deflection event fires once per accepted offer. */
  private readonly announced = new Set<string>();
  private opener: HTMLElement | null = null;
  /** While the flow opens, its failures wait for `opened`, which comes first (the documented order). */
  private heldFailures: Array<Record<string, unknown>> | null = null;
  /** Suffix of the radio groups' names, new whenever a step is shown (willUpdate says why). */
  private groups = 0;
  private shownStep: Step | null = null;

  constructor() {
    super();
    this.mode = 'upgrade';
    this.renderMode = 'modal';
    this.defaultApplyAt = 'IMMEDIATE';
    this.token = '';
    this.baseUrl = '';
    this.messages = {};
  }

  private get m(): Messages {
    return { ...english, ...this.messages };
  }

  private get api(): WidgetApi {
    return new WidgetApi(this.baseUrl || location.origin, this.token);
  }

  private get inline(): boolean {
    return this.renderMode === 'inline';
  }

  protected override firstUpdated(): void {
    // After the first render, so properties set right after the element was created are in.
    if (this.inline) void this.start();
  }

  protected override willUpdate(): void {
    // Chromium drops a radio group's tab stop when, in a shadow root, a group one of whose radios
    // had the focus is removed and a group of the same name comes back with none checked: Tab and
    // Shift+Tab then skip it (the reasons after Escape and opening again). A step shown anew
    // (reopened, or come back to) names its groups anew, so they are new groups to the browser.
    const shown = this.open || this.inline ? this.step : null;
    if (shown !== this.shownStep) {
      this.shownStep = shown;
      this.groups++;
    }
  }

  protected override updated(): void {
    // In the dialog, focus stays inside: on its first control when it opens, or when a step change removed the focused one.
    if (this.open && !this.inline) this.focusFirst();
  }

  /** Opens the flow (the modal's button calls it; an inline widget starts on its own). */
  async start(): Promise<void> {
    this.open = true;
    this.step = 'choose';
    this.result = null;
    this.preview = null;
    this.offerAccepted = false;
    this.applyAt = this.defaultApplyAt === 'PERIOD_END' ? 'PERIOD_END' : 'IMMEDIATE';
    this.heldFailures = [];
    await this.load();
    const held = this.heldFailures;
    this.heldFailures = null;
    // After the first load, so the event names the subscription (null when the load failed), and
    // before that load's failure: opened always comes first.
    this.fire(WIDGET_EVENTS.opened, {});
    for (const detail of held) this.fire(WIDGET_EVENTS.failed, detail);
  }

  /** Closes the modal, returning focus to the button that opened it. */
  close(): void {
    if (!this.open || this.inline) return;
    if (this.step !== 'done') this.fire(WIDGET_EVENTS.dismissed, { step: this.step });
    this.open = false;
    this.error = null;
    this.requestUpdate();
    void this.updateComplete.then(() => (this.opener ?? this.renderRoot.querySelector<HTMLElement>('[part~="opener"]'))?.focus());
  }

  private fire(name: WidgetEventName, detail: Record<string, unknown>): void {
    if (name === WIDGET_EVENTS.failed && this.heldFailures) return void this.heldFailures.push(detail);
    emit(this, name, { mode: this.mode, subscriptionId: this.sub?.id ?? null, ...detail });
  }

  /** Runs a backend call with the busy state and inline errors; `retry` re-runs it from the error. */
  private async run(what: () => Promise<void>, retryable = true): Promise<void> {
    this.busy = true;
    this.error = null;
    this.requestUpdate();
    try {
      await what();
    } catch (err) {
      const e = err instanceof WidgetApiError ? err : new WidgetApiError('other', 0, 'CLIENT', String(err));
      this.fire(WIDGET_EVENTS.failed, { step: this.step, status: e.status, code: e.code });
      if (e.kind === 'changed') {
        // Back to step 1 with fresh data, and say why.
        this.busy = false;
        this.step = 'choose';
        this.preview = null;
        this.idempotencyKey = null;
        await this.load();
        this.notice = this.m.errorChanged;
        return;
      }
      const m = this.m;
      const text = { invalid: m.errorInvalid, expired: m.errorExpired, pending: m.errorPending, network: m.errorNetwork, other: m.errorOther }[e.kind];
      // The same token or the same pending change would fail again: no retry for those.
      const final = e.kind === 'invalid' || e.kind === 'expired' || e.kind === 'pending';
      this.error = { text, retry: retryable && !final ? () => void this.run(what, retryable) : null };
    } finally {
      this.busy = false;
      this.requestUpdate();
    }
  }

  private load(): Promise<void> {
    this.notice = null;
    return this.run(async () => {
      const api = this.api;
      const [sub, config, candidates] = await Promise.all([
        api.subscription(),
        this.mode === 'upgrade' ? api.config() : Promise.resolve(null),
        this.mode === 'upgrade' ? api.candidates() : Promise.resolve([]),
      ]);
      this.sub = sub;
      this.config = config;
      this.candidates = candidates;
      if (this.selected && !candidates.some((c) => c.offeringId === this.selected)) this.selected = null;
    });
  }

  private choose(value: string): void {
    if (this.mode === 'upgrade') {
      this.selected = value;
      this.fire(WIDGET_EVENTS.selected, { offeringId: value, kind: this.candidates.find((c) => c.offeringId === value)?.kind ?? null });
    } else {
      this.reason = value as CancelReason;
      this.offer = null;
      this.fire(WIDGET_EVENTS.selected, { reason: value });
    }
    this.requestUpdate();
  }

  private next(): Promise<void> {
    if (this.mode === 'upgrade') return this.toPreview();
    const reason = this.reason;
    if (!reason) return Promise.resolve();
    return this.run(async () => {
      this.offer = await this.api.retentionOffer(reason);
      if (this.offer.type === 'NONE') await this.toPreview();
      else this.step = 'offer';
    });
  }

  private async acceptOffer(): Promise<void> {
    const { reason, offer } = this;
    if (!reason || !offer || offer.type === 'NONE') return;
    await this.run(async () => {
      const acceptance = await this.api.acceptOffer(reason, offer.type);
      this.offerAccepted = true;
      this.step = 'done';
      if (!this.announced.has(reason)) {
        this.announced.add(reason);
        this.fire(WIDGET_EVENTS.deflectionOfferAccepted, { offerKey: offer.type, reason, acceptanceId: acceptance.id });
      }
    });
  }

  private toPreview(): Promise<void> {
    this.step = 'preview';
    this.idempotencyKey = null;
    return this.runPreview();
  }

  private runPreview(): Promise<void> {
    const applyAt = this.applyAt;
    return this.run(async () => {
      const body = this.mode === 'upgrade' ? { offeringId: this.selected!, applyAt } : { cancel: true as const, reason: this.reason ?? 'OTHER', applyAt };
      const preview = await this.api.preview(body);
      // An answer for an apply-at choice changed since is not shown.
      if (applyAt !== this.applyAt) return;
      this.preview = preview;
      this.fire(WIDGET_EVENTS.previewed, {
        action: preview.action,
        applyAt,
        offeringId: this.selected,
        reason: this.reason,
        currency: preview.currency,
        netChargeToday: preview.netChargeToday,
        invoiceTotal: preview.invoiceTotal,
      });
    });
  }

  private setApplyAt(value: ApplyAt): void {
    if (value === this.applyAt) return;
    this.applyAt = value;
    this.idempotencyKey = null;
    void this.runPreview();
  }

  private confirm(): Promise<void> {
    const preview = this.preview;
    if (!preview || this.busy) return Promise.resolve();
    this.idempotencyKey ??= crypto.randomUUID();
    const key = this.idempotencyKey;
    this.fire(WIDGET_EVENTS.confirmed, { action: preview.action, applyAt: preview.applyAt, offeringId: this.selected, reason: this.reason });
    return this.run(async () => {
      const expectedVersion = preview.subscriptionVersion;
      const r =
        this.mode === 'upgrade'
          ? await this.api.upgrade({ offeringId: this.selected!, applyAt: preview.applyAt, expectedVersion, ...returnUrl() }, key)
          : await this.api.cancel({ reason: this.reason ?? 'OTHER', applyAt: preview.applyAt, expectedVersion }, key);
      this.result = r;
      this.sub = r.subscription;
      this.step = 'done';
      this.idempotencyKey = null;
      this.fire(WIDGET_EVENTS.completed, {
        action: r.action,
        applyAt: r.applyAt,
        status: r.status,
        offeringId: r.offeringId,
        invoiceId: r.invoiceId,
        creditNoteId: r.creditNoteId,
        creditNoteAmount: r.creditNoteAmount,
        currency: r.subscription.currency,
        scheduledAt: r.scheduledAt,
        effectiveAt: r.effectiveAt,
        reason: this.reason,
      });
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Rendering

  override render(): TemplateResult {
    const m = this.m;
    if (this.inline) return this.panel();
    return html`<button part="opener button" type="button" aria-haspopup="dialog" @click=${this.onOpen}>
        ${this.mode === 'cancel' ? m.openCancel : m.openUpgrade}</button
      >${
        this.open
          ? html`<div class="backdrop" @click=${this.onBackdrop} @keydown=${this.onKeydown}>
              <span class="guard" tabindex="0" @focus=${() => this.wrapTo('last')}></span>${this.panel()}<span
                class="guard"
                tabindex="0"
                @focus=${() => this.wrapTo('first')}
              ></span>
            </div>`
          : nothing
      }`;
  }

  private onOpen = (e: Event): void => {
    this.opener = e.currentTarget as HTMLElement;
    void this.start();
  };

  private onBackdrop = (e: Event): void => {
    if (e.target === e.currentTarget) this.close();
  };

  /** Escape closes. */
  private onKeydown = (e: KeyboardEvent): void => {
    if (e.key !== 'Escape') return;
    e.stopPropagation();
    this.close();
  };

  private focusable(): HTMLElement[] {
    return [...this.renderRoot.querySelectorAll<HTMLElement>('.panel button:not([disabled]), .panel input:not([disabled]), .panel a[href]')];
  }

  /**
   * The focus trap: a focusable guard on each side of the dialog sends the focus round to the
   * other end, so Tab and Shift+Tab never leave it (whatever the browser's order within a radio
   * group, which a keydown handler would have to guess). The end may be a radio group (the
   * reasons, while Continue is disabled): a group is one stop, its checked radio, else the radio
   * at that end, as the browser itself lands on it.
   */
  private wrapTo(edge: 'first' | 'last'): void {
    const items = this.focusable();
    const end = edge === 'first' ? items[0] : items[items.length - 1];
    const isRadio = (el: HTMLElement | undefined): el is HTMLInputElement => el instanceof HTMLInputElement && el.type === 'radio';
    const checked = isRadio(end) ? items.find((el) => isRadio(el) && el.name === end.name && el.checked) : undefined;
    (checked ?? end)?.focus();
  }

  private focusFirst(): void {
    const root = this.renderRoot instanceof ShadowRoot ? this.renderRoot : null;
    if (root?.activeElement && root.querySelector('.panel')?.contains(root.activeElement)) return;
    this.focusable()[0]?.focus();
  }

  private panel(): TemplateResult {
    const m = this.m;
    const title = this.mode === 'cancel' ? m.titleCancel : m.titleUpgrade;
    const stepText = { choose: m.stepChoose, offer: m.stepChoose, preview: m.stepPreview, done: m.stepDone }[this.step];
    return html`<section
      class="panel"
      part=${this.inline ? 'panel' : 'dialog panel'}
      role=${this.inline ? 'region' : 'dialog'}
      aria-modal=${this.inline ? nothing : 'true'}
      aria-labelledby="title"
      aria-busy=${this.busy ? 'true' : 'false'}
    >
      <header>
        <h2 id="title" part="title">${title}</h2>
        ${this.inline ? nothing : html`<button class="close" type="button" part="button" aria-label=${m.close} @click=${() => this.close()}>✕</button>`}
      </header>
      <p class="step" aria-live="polite">${stepText}${this.busy ? html` · ${m.loading}` : nothing}</p>
      ${this.notice ? html`<p class="error" part="error" role="status">${this.notice}</p>` : nothing}
      ${
        this.error
          ? html`<div class="error" part="error" role="alert">
              ${this.error.text} ${this.error.retry ? html` <button type="button" part="button" @click=${this.error.retry}>${m.retry}</button>` : nothing}
            </div>`
          : nothing
      }
      ${this.body()}
    </section>`;
  }

  private body(): TemplateResult | typeof nothing {
    if (this.step === 'done') return this.done();
    if (this.step === 'offer') return this.offerStep();
    if (this.step === 'preview') return this.previewStep();
    return this.chooseStep();
  }

  private chooseStep(): TemplateResult | typeof nothing {
    const m = this.m;
    const sub = this.sub;
    if (!sub) return nothing;
    const currentDetails = sub.offering ? this.details(sub.offering.id, 'current-details') : null;
    const current = sub.offering
      ? html`<div class="current">
          <p class="muted">${m.currentPlan(sub.offering.name, sub.offering.priceText)}</p>
          ${currentDetails ? html`<div class="details" id=${currentDetails.id}>${currentDetails.content}</div>` : nothing}
        </div>`
      : nothing;
    if (this.mode === 'cancel') {
      return html`${current}
        <fieldset>
          <legend>${m.chooseReason}</legend>
          ${CANCEL_REASONS.map((r) => this.option('reason', r, this.reason === r, html`<span class="grow">${m[`reason${r}`]}</span>`))}
        </fieldset>
        <div class="actions">
          <button class="primary" type="button" part="button primary" ?disabled=${!this.reason || this.busy} @click=${() => void this.next()}>
            ${m.continue}
          </button>
        </div>`;
    }
    if (this.candidates.length === 0)
      return html`${current}
        <p>${m.noCandidates}</p>`;
    return html`${current}
      <fieldset>
        <legend class="sr">${m.titleUpgrade}</legend>
        ${this.candidates.map((c, i) =>
          this.option(
            'offering',
            c.offeringId,
            this.selected === c.offeringId,
            html`<span class="grow">${c.name}</span><span>${this.config ? candidatePrice(this.config, c.offeringId) : ''}</span>
              <span class="badge">${kindLabel(m, c.kind)}</span>`,
            undefined,
            this.details(c.offeringId, `offering-${i}-details`),
          ),
        )}
      </fieldset>
      <div class="actions">
        <button class="primary" type="button" part="button primary" ?disabled=${!this.selected || this.busy} @click=${() => void this.next()}>
          ${m.continue}
        </button>
      </div>`;
  }

  /**
   * One radio option; by default picking it chooses the offering or the reason. `details` (an
   * offering's units) sit in the option's box but outside its <label>: a list may not go inside a
   * label, and the radio's name stays short ("Pro $49.00/mo Upgrade") with the units as its
   * description instead.
   */
  private option(
    name: string,
    value: string,
    checked: boolean,
    label: TemplateResult,
    onPick = () => this.choose(value),
    details: { id: string; content: TemplateResult } | null = null,
  ): TemplateResult {
    const input = html`<input
      type="radio"
      name=${`${name}-${this.groups}`}
      .value=${value}
      .checked=${checked}
      aria-describedby=${details?.id ?? nothing}
      @change=${onPick}
    />`;
    if (!details) return html`<label class="option" part="option">${input}${label}</label>`;
    return html`<div class="option" part="option">
      <label>${input}${label}</label>
      <div class="details" id=${details.id}>${details.content}</div>
    </div>`;
  }

  /**
   * An offering's price per month (when it is not the price itself) and its units, worded as the
   * pricing page words them (present.ts); null when there is neither, or no configuration yet.
   */
  private details(offeringId: string, id: string): { id: string; content: TemplateResult } | null {
    const config = this.config;
    if (!config) return null;
    const perMonth = candidatePerMonth(config, offeringId);
    const prepaid = candidatePrepaid(config, offeringId);
    const units = candidateUnits(config, offeringId);
    if (perMonth === null && !prepaid && units.length === 0) return null;
    return {
      id,
      content: html`${perMonth === null ? nothing : html`<p class="per-month">${this.m.perMonth(perMonth)}</p>`}
      ${prepaid ? html`<p class="per-month">${this.m.prepaid}</p>` : nothing}
      ${
        units.length === 0
          ? nothing
          : html`<ul class="units">
              ${units.map(
                (u) =>
                  html`<li>
                    ${u.text}${u.note === null ? nothing : html`<span class="note">${u.note}</span>`}${
                      u.minimum === null ? nothing : html`<span class="note">${u.minimum}</span>`
                    }
                  </li>`,
              )}
            </ul>`
      }`,
    };
  }

  private offerStep(): TemplateResult | typeof nothing {
    const m = this.m;
    const offer = this.offer;
    if (!offer || offer.type === 'NONE') return nothing;
    return html`<h3>${m.offerTitle}</h3>
      <p>${offer.description}</p>
      <div class="actions">
        <button type="button" part="button" ?disabled=${this.busy} @click=${() => void this.toPreview()}>${m.offerDecline}</button>
        ${
          offer.type === 'SUPPORT_HANDOFF'
            ? html`<a part="button primary" href=${offer.url} target="_blank" rel="noopener" @click=${() => void this.acceptOffer()}>${m.offerSupport}</a>`
            : html`<button class="primary" type="button" part="button primary" ?disabled=${this.busy} @click=${() => void this.acceptOffer()}>
                ${m.offerAccept}
              </button>`
        }
      </div>`;
  }

  private previewStep(): TemplateResult {
    const m = this.m;
    const p = this.preview;
    const end = this.sub ? dateOf(this.sub.currentPeriodEnd) : '';
    const choice = (value: ApplyAt, label: string) =>
      this.option('applyAt', value, this.applyAt === value, html`<span class="grow">${label}</span>`, () => this.setApplyAt(value));
    return html`<fieldset>
        <legend>${m.applyAtLabel}</legend>
        ${choice('IMMEDIATE', m.applyNow)} ${choice('PERIOD_END', m.applyAtPeriodEnd(end))}
      </fieldset>
      ${
        p
          ? html`<dl>
                ${previewLines(m, p).map(
                  (l) =>
                    html`<dt class=${l.total ? 'total' : nothing}>${l.label}</dt>
                      <dd class=${l.total ? 'total' : nothing}>${l.amount}</dd>`,
                )}
              </dl>
              <p>${p.summary}</p>`
          : nothing
      }
      <div class="actions">
        <button type="button" part="button" ?disabled=${this.busy} @click=${() => this.backToChoose()}>${m.back}</button>
        <button class="primary" type="button" part="button primary" ?disabled=${!p || this.busy} @click=${() => void this.confirm()}>
          ${this.busy && p ? m.working : this.mode === 'cancel' ? m.confirmCancel : m.confirmUpgrade}
        </button>
      </div>`;
  }

  private backToChoose(): void {
    this.step = 'choose';
    this.preview = null;
    this.error = null;
    this.requestUpdate();
  }

  private done(): TemplateResult {
    const m = this.m;
    const r = this.result;
    const lines = this.offerAccepted ? [m.offerAccepted] : r ? resultLines(m, r) : [];
    // A payment the buyer's bank must confirm (3-D Secure): Stripe's page, which brings them back here.
    const confirm = r?.payment?.status === 'requires_action' ? r.payment.actionUrl : null;
    return html`<div part="result" role="status">${lines.map((l) => html`<p>${l}</p>`)}</div>
      ${confirm ? html`<div class="actions"><a class="primary" part="button primary" href=${confirm}>${m.confirmPayment}</a></div>` : nothing}
      ${
        this.inline
          ? nothing
          : html`<div class="actions"><button class="primary" type="button" part="button primary" @click=${() => this.close()}>${m.done}</button></div>`
      }`;
  }
}

/** The page the widget is on, for Stripe to bring the buyer back to after 3-D Secure (http(s) pages only). */
function returnUrl(): { returnUrl?: string } {
  const here = globalThis.location?.href;
  return typeof here === 'string' && /^https?:\/\//.test(here) && here.length <= 2000 ? { returnUrl: here } : {};
}

if (!customElements.get('tollgate-upgrade-cancel')) customElements.define('tollgate-upgrade-cancel', TollgateUpgradeCancel);

declare global {
  interface HTMLElementTagNameMap {
    'tollgate-upgrade-cancel': TollgateUpgradeCancel;
  }
}
