/**
 * Dotted paths into a JSON object, such as usage metadata: `request.method` is the key `method`
 * of the object under the key `request`. Kept simple on purpose:
 * - a segment names an object key of 1 to 40 characters from [A-Za-z0-9_-]. A key with any other
 *   character (a dot, a space) is stored like any other but no path can address it;
 * - a segment never indexes an array: `items.0` reads nothing when `items` is an array (on both
 *   databases, and here);
 * - at most 5 segments, as deep as usage metadata nests.
 * The pattern is what makes a path safe to turn into a database JSON path: nothing outside it
 * (no quote, no bracket, no `$`) ever reaches SQL text, and the path is still bound as a parameter.
 */
const SEGMENT = '[A-Za-z0-9_-]{1,40}';
export const MAX_PATH_SEGMENTS = 5;
export const DOTTED_PATH_PATTERN = `^${SEGMENT}(\\.${SEGMENT}){0,${MAX_PATH_SEGMENTS - 1}}$`;
/** Longest text a dotted path can have: 5 segments of 40 characters and their 4 dots. */
export const MAX_PATH_LENGTH = MAX_PATH_SEGMENTS * 41 - 1;

const PATH = new RegExp(DOTTED_PATH_PATTERN);

/** The segments of a dotted path, or null when the text is not one. */
export function parseDottedPath(text: string): string[] | null {
  return PATH.test(text) ? text.split('.') : null;
}

/**
 * The value at a path, or undefined when some segment finds nothing: a missing key, or a value on
 * the way that is not a plain object (an array, a string, null). Own keys only, so `constructor`
 * or `__proto__` never reach Object.prototype.
 */
export function valueAtPath(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const key of segments) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
