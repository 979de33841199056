import type { ApiProblem } from '../errors.js';
import { retryText } from '../errors.js';

/** A failed load, in the API's words (and when to try again, if it said). */
export function ProblemMessage(props: { problem: ApiProblem }) {
  const { errors, retryAfterSeconds } = props.problem;
  return (
    <div class="problem" role="alert">
      {errors.map((e) => (
        <p key={e.code + e.message}>{e.message}</p>
      ))}
      {retryAfterSeconds !== null && <p>{retryText(retryAfterSeconds)}</p>}
    </div>
  );
}
