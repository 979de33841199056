/**
 * A bar chart of decimal values, drawn as inline SVG: no chart library, because the console's
 * whole script has a 60 kB gzip budget (test/bundle.test.ts) and a library alone would take most
 * of it for the few bar charts the console draws. The SVG scales to its box through its viewBox
 * (no text inside it, so nothing is stretched), and every value is also in a table behind a
 * disclosure: the accessible equivalent, with the exact text the API sent.
 */
import { useId } from 'preact/hooks';
import { barFractions, maxValue, type BarDatum } from '../chart.js';

export interface BarChartProps {
  title: string;
  series: readonly BarDatum[];
  /** Words a value for people ("$1,234.50", "1,200 calls"); the text as sent when absent. */
  format?: (value: string) => string;
  /** The table's column heads: what a label and a value are ("Day", "Calls"). */
  labelHeading?: string;
  valueHeading?: string;
}

/** The drawing's own units: a bar per step, the height scaled by the box. */
const STEP = 10;
const BAR = 8;
const HEIGHT = 100;

export function BarChart(props: BarChartProps) {
  const id = useId();
  const format = props.format ?? ((v: string) => v);
  const values = props.series.map((d) => d.value);
  const fractions = barFractions(values);
  const max = maxValue(values);
  const first = props.series[0];
  const last = props.series[props.series.length - 1];
  const width = Math.max(props.series.length, 1) * STEP;
  const summary =
    props.series.length === 0
      ? `${props.title}: no data`
      : `${props.title}: ${props.series.length} bars from ${first?.label} to ${last?.label}, highest ${max === null ? 'none' : format(max)}`;

  return (
    <figure class="bar-chart" aria-labelledby={`${id}-t`}>
      <figcaption id={`${id}-t`}>{props.title}</figcaption>
      <div class="bar-chart-plot">
        <p class="bar-chart-max">{max === null ? '' : format(max)}</p>
        <svg viewBox={`0 0 ${width} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary} focusable="false">
          {fractions.map((f, i) => {
            const h = f * HEIGHT;
            const d = props.series[i] as BarDatum;
            return (
              <rect key={d.label} x={i * STEP + (STEP - BAR) / 2} y={HEIGHT - h} width={BAR} height={h}>
                <title>{`${d.label}: ${format(d.value)}`}</title>
              </rect>
            );
          })}
          <line x1="0" y1={HEIGHT} x2={width} y2={HEIGHT} vector-effect="non-scaling-stroke" />
        </svg>
        <p class="bar-chart-axis" aria-hidden="true">
          <span>{first?.label}</span>
          <span>{last === first ? '' : last?.label}</span>
        </p>
      </div>
      <details class="bar-chart-data">
        <summary>Show the data as a table</summary>
        <div class="table-scroll" role="region" aria-label={`${props.title}, as a table`} tabIndex={0}>
          <table>
            <caption>{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">{props.labelHeading ?? 'Day'}</th>
                <th scope="col">{props.valueHeading ?? 'Value'}</th>
              </tr>
            </thead>
            <tbody>
              {props.series.map((d) => (
                <tr key={d.label}>
                  <th scope="row">{d.label}</th>
                  <td class="amount">{format(d.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
