/**
 * The OpenAPI document with every local `$ref` (`#/components/schemas/…`, `#/components/responses/…`)
 * replaced by what it names, for tests that read a route's schema as a whole. A description beside
 * a $ref wins over the named one's, as OpenAPI 3.1 says.
 */
export function inlineRefs<T>(node: T, doc: any = node): T {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, doc)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, ...siblings } = node as { $ref?: unknown };
  if (typeof $ref === 'string' && $ref.startsWith('#/')) {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce((at: any, key) => at?.[key], doc);
    if (target === undefined) throw new Error(`${$ref} names nothing in the document`);
    return { ...inlineRefs(target, doc), ...inlineRefs(siblings, doc) } as T;
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : inlineRefs(v, doc)])) as T;
}
