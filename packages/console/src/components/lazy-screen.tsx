/**
 * A screen whose code is loaded on its first visit: a dynamic import() that esbuild's splitting
 * turns into a chunk of its own (src/lazy-screens.ts declares them). The module is fetched the
 * first time the screen is shown (or preload() is called) and kept for the life of the page;
 * preact/compat's lazy and Suspense would do the same for 10 kB more. Meanwhile a status says it
 * is loading; a chunk that cannot be fetched (the network, or a new build that no longer has it)
 * shows a heading and an alert with a Reload button, and the next visit tries again.
 */
import type { ComponentType, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ScreenTitle } from './screen-title.js';

export interface LazyScreen<P> {
  (props: P): JSX.Element;
  /** Starts fetching the screen's code now; the same promise until it fails. */
  preload(): Promise<ComponentType<P>>;
}

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): LazyScreen<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const preload = () =>
    (loading ??= load().then(
      (screen) => (loaded = screen),
      (err: unknown) => {
        loading = null;
        throw err;
      },
    ));

  function Lazy(props: P): JSX.Element {
    const [state, setState] = useState<'loading' | 'loaded' | 'failed'>(loaded ? 'loaded' : 'loading');
    useEffect(() => {
      if (loaded) return undefined;
      let live = true;
      preload().then(
        () => live && setState('loaded'),
        () => live && setState('failed'),
      );
      return () => {
        live = false;
      };
    }, []);
    // The shell moves focus to a new screen's heading, or to <main> while it has none yet: hand
    // it on to the heading once the screen is here (not when the operator has moved it since).
    useEffect(() => {
      if (state === 'loading') return;
      const main = document.getElementById('main');
      if (main && document.activeElement === main) main.querySelector<HTMLElement>('h1')?.focus();
    }, [state]);

    const Screen = loaded;
    if (Screen) return <Screen {...props} />;
    if (state === 'failed') {
      return (
        <>
          <ScreenTitle>This screen could not be loaded</ScreenTitle>
          <div class="problem" role="alert">
            <p>The console could not fetch this screen's code: the connection failed, or the console has been updated since this page was opened.</p>
          </div>
          <p>
            <button type="button" onClick={() => window.location.reload()}>
              Reload the page
            </button>
          </p>
        </>
      );
    }
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  }
  Lazy.preload = preload;
  return Lazy;
}
