/**
 * Which methods a path answers to, for the 405 of a request whose path exists under other methods
 * (RFC 9110: 405 lists them in Allow). Route patterns are Fastify's: `:name` is one path segment,
 * `*` the rest of the path. Pure, so a table tests it; the not-found handler asks it only on a miss.
 */
export interface RoutePattern {
  method: string;
  url: string;
}

export class AllowedMethods {
  private readonly patterns: Array<{ method: string; test: RegExp }> = [];

  add(route: RoutePattern): void {
    const source = route.url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    // Trailing slashes are ignored by the router (ignoreTrailingSlash), so here too.
    this.patterns.push({ method: route.method.toUpperCase(), test: new RegExp(`^${source}/?$`) });
  }

  /** The methods some route takes at `path` (no query), sorted; HEAD comes with GET. */
  of(path: string): string[] {
    const methods = new Set<string>();
    for (const p of this.patterns) {
      if (!p.test.test(path)) continue;
      methods.add(p.method);
      if (p.method === 'GET') methods.add('HEAD');
    }
    return [...methods].sort();
  }
}
