/**
 * The browser side of the router: the current location as state, and navigate(), over the
 * history API (no hash). routes.ts decides what a path shows.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  pathname: string;
  search: string;
}

const CHANGE = 'tollgate:navigate';

const current = (): Location => ({ pathname: window.location.pathname, search: window.location.search });

/** Goes to a path of this app without a page load; replace for redirects, so Back skips them. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

/** The location, updated on navigate() and on Back and Forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return location;
}

/** A click a link should handle itself: the main button, no modifier (those open a new tab or window). */
export function isPlainClick(e: MouseEvent): boolean {
  return e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey && !e.defaultPrevented;
}
