/**
 * The catalog editor: metrics, rate plans, offerings and storefronts, one sub-route each under
 * /console/catalog, with a sub-navigation between them. Editing needs an admin; the server decides,
 * the page only hides the forms from viewers. The frame (heading and sub-navigation) comes with the
 * app; each view's code on its first visit (lazy-screens.ts).
 */
import type { ComponentChildren } from 'preact';
import { Link } from '../components/link.js';
import { ScreenTitle } from '../components/screen-title.js';
import { hrefOf, type Route, type ScreenName } from '../routes.js';
import { Metrics, Offerings, RatePlanEditor, RatePlans, Storefronts } from '../lazy-screens.js';

const VIEWS: ReadonlyArray<{ name: ScreenName; label: string }> = [
  { name: 'catalog', label: 'Metrics' },
  { name: 'catalog-rate-plans', label: 'Rate plans' },
  { name: 'catalog-offerings', label: 'Offerings' },
  { name: 'catalog-storefronts', label: 'Storefronts' },
];

/** A catalog route's title and body, for app.tsx's screenOf. */
export function catalogScreen(route: Route) {
  const section = route.name === 'catalog-rate-plan' ? 'catalog-rate-plans' : route.name;
  const view = VIEWS.find((v) => v.name === section) ?? VIEWS[0]!;
  return {
    title: `${view.label} · Catalog`,
    body: (
      <Catalog section={view.name}>
        <View route={route} />
      </Catalog>
    ),
  };
}

function View(props: { route: Route }) {
  const { route } = props;
  if (route.name === 'catalog-rate-plans') return <RatePlans />;
  if (route.name === 'catalog-rate-plan') return <RatePlanEditor id={route.params.id ?? 'new'} />;
  if (route.name === 'catalog-offerings') return <Offerings />;
  if (route.name === 'catalog-storefronts') return <Storefronts />;
  return <Metrics />;
}

function Catalog(props: { section: ScreenName; children: ComponentChildren }) {
  return (
    <>
      <ScreenTitle>Catalog</ScreenTitle>
      <nav aria-label="Catalog" class="subnav">
        <ul>
          {VIEWS.map((v) => (
            <li key={v.name}>
              <Link href={hrefOf(v.name)} current={v.name === props.section}>
                {v.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {props.children}
    </>
  );
}
