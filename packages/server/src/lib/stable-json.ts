type Step = { text: string } | { value: unknown };

/**
 * JSON with object keys sorted, so equal values give equal text whatever the key order. It
 * fingerprints request bodies, so it works from an explicit stack rather than recursion: no
 * depth of value can overflow it.
 */
export function stableStringify(value: unknown): string {
  const out: string[] = [];
  const steps: Step[] = [{ value }];
  while (steps.length > 0) {
    const step = steps.pop()!;
    if ('text' in step) {
      out.push(step.text);
      continue;
    }
    const v = step.value;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    // Pushed in reverse: the stack gives back the opening bracket first.
    if (Array.isArray(v)) {
      steps.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        steps.push({ value: v[i] });
        if (i > 0) steps.push({ text: ',' });
      }
      steps.push({ text: '[' });
      continue;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    steps.push({ text: '}' });
    for (let i = keys.length - 1; i >= 0; i--) {
      steps.push({ value: obj[keys[i]!] });
      steps.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
    }
    steps.push({ text: '{' });
  }
  return out.join('');
}
