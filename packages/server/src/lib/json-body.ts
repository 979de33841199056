import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';
import { describeJsonProblem, findJsonProblem } from './json-limits.js';

/**
 * A JSON request body as the API reads it: empty text is no body, prototype-poisoning keys are
 * refused, a syntax error says where it is, and the value may nest at most MAX_JSON_DEPTH levels
 * and hold no NUL character (json-limits.ts). Throws the AppError to answer. Used by the body
 * parser (http/body-parsers.ts) and by the ingestion checker thread, which parses batch bodies
 * off the main thread.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    throw new AppError('INVALID_JSON', `The body is not valid JSON: ${(err as Error).message}.`);
  }
  const problem = findJsonProblem(value, 'body');
  if (problem) {
    const { field, message } = describeJsonProblem(problem, 'body');
    throw new AppError(problem.kind === 'too_deep' ? 'INVALID_JSON' : 'VALIDATION_FAILED', message, { field });
  }
  return value;
}
