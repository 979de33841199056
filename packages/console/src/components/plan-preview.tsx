/**
 * A rate plan as the pricing page words it, from @tollgate/pricing's describeRatePlan (previewOf),
 * beside the form that edits it, each unit worded with its metric's display name and unit, and
 * nothing else: "API calls: $0.0020 / call", as the page and the widget write it (the form's
 * metric select already says which metric it is). Not a live region: it changes with every
 * keystroke, which a screen reader would read out over the typing; it sits right after the form
 * instead.
 */
import type { Preview } from '../plan-form.js';

export function PlanPreview(props: { preview: Preview }) {
  const { display, issues } = props.preview;
  return (
    <section class="preview" aria-labelledby="plan-preview">
      <h3 id="plan-preview">Preview: the pricing page's wording</h3>
      {display && (
        <div class="preview-card" data-testid="plan-preview">
          <p class="preview-name">{display.name.trim() === '' ? 'Unnamed plan' : display.name}</p>
          {display.headline && <p class="preview-headline">{display.headline}</p>}
          {display.units.map((u, i) => (
            <div class="preview-unit" key={`${i}-${u.metricName}`}>
              <p>
                <span class="preview-label">{u.label}</span>: <span class="preview-headline">{u.headline}</span>
              </p>
              {u.tiers && (
                <div class="table-scroll" role="region" aria-label={`${u.label}: price tiers`} tabIndex={0}>
                  <table>
                    <caption>{u.label}: price tiers</caption>
                    <thead>
                      <tr>
                        <th scope="col">{u.tierHeadings?.range}</th>
                        <th scope="col">{u.tierHeadings?.unitPrice}</th>
                        <th scope="col">{u.tierHeadings?.flatFee}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {u.tiers.map((t) => (
                        <tr key={t.range}>
                          <td>{t.range}</td>
                          <td>{t.unitPrice ?? '—'}</td>
                          <td>{t.flatFee ?? '—'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {u.weights && u.weights.length > 0 && (
                <ul>
                  {u.weights.map((w) => (
                    <li key={w.status}>
                      {w.statusText}: {w.label}
                    </li>
                  ))}
                </ul>
              )}
              {u.note && <p class="muted">{u.note}</p>}
              {u.minimum && <p class="muted">{u.minimum}</p>}
            </div>
          ))}
        </div>
      )}
      {issues.length > 0 && (
        <div class="preview-issues">
          <p>Not in the preview until fixed:</p>
          <ul>
            {issues.map((i) => (
              <li key={i.field + i.message}>{i.message}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
