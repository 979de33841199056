/**
 * Upload historical usage (POST /api/v1/hub/usage/uploads): a CSV or NDJSON file, sent as itself
 * through XMLHttpRequest rather than fetch, because only XHR reports how much of the body has
 * gone (fetch has no upload progress); asked for the streamed answer, so the server's progress
 * lines show while a large file is checked. Then the report: counts, and each rejected line.
 */
import { useContext, useRef, useState } from 'preact/hooks';
import { FieldErrors, errorIdOf } from '../components/field-errors.js';
import { ProblemMessage } from '../components/problem-message.js';
import { useApiScope } from '../context.js';
import { problemFrom, type ApiProblem, type FormErrors } from '../errors.js';
import { HubCsrf } from './session.js';
import {
  problemColumn,
  problemSentence,
  progressText,
  readUploadStream,
  summaryText,
  truncatedText,
  uploadTypeOf,
  type UploadCounts,
  type UploadSummary,
  type UploadType,
} from './upload-model.js';

const UPLOAD_PATH = '/api/v1/hub/usage/uploads';
const ACCEPT = '.csv,.ndjson,.jsonl,text/csv,application/x-ndjson';

type Phase =
  | { phase: 'idle' }
  | { phase: 'sending'; sent: number; total: number; counts: UploadCounts | null }
  | { phase: 'done'; summary: UploadSummary }
  | { phase: 'failed'; problem: ApiProblem };

/** The answer's text and status once the request ends; `onProgress` as bytes go and as lines come back. */
function send(
  file: File,
  type: UploadType,
  csrf: string | null,
  onProgress: (sent: number, total: number, text: string) => void,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', UPLOAD_PATH);
    xhr.withCredentials = true;
    xhr.setRequestHeader('content-type', type);
    xhr.setRequestHeader('accept', 'application/x-ndjson');
    if (csrf !== null) xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size, '');
    xhr.onprogress = () => onProgress(file.size, file.size, xhr.responseText);
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => resolve({ status: 0, text: '' });
    xhr.onabort = () => resolve({ status: 0, text: '' });
    xhr.send(file);
  });
}

/** The ended request as the form shows it: the summary, or the problem (a refusal before the stream, or an error as its last line). */
function outcome(status: number, text: string): Phase {
  if (status >= 200 && status < 300) {
    const read = readUploadStream(text, true);
    if (read.summary) return { phase: 'done', summary: read.summary };
    return { phase: 'failed', problem: problemFrom(500, read.failure) };
  }
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not the envelope (a proxy's page): problemFrom words the status.
  }
  return { phase: 'failed', problem: problemFrom(status, body) };
}

export function UploadUsage(props: { onUploaded: () => void }) {
  const { signedOut } = useApiScope();
  const csrf = useContext(HubCsrf);
  const input = useRef<HTMLInputElement>(null);
  const [phase, setPhase] = useState<Phase>({ phase: 'idle' });
  const [errors, setErrors] = useState<FormErrors>({ byInput: {}, general: [] });

  async function submit(e: Event) {
    e.preventDefault();
    const file = input.current?.files?.[0];
    const type = file ? uploadTypeOf(file) : null;
    if (!file || !type) {
      setErrors({ byInput: { file: [file ? 'Choose a .csv, .ndjson or .jsonl file.' : 'Choose a file to upload.'] }, general: [] });
      return;
    }
    setErrors({ byInput: {}, general: [] });
    setPhase({ phase: 'sending', sent: 0, total: file.size, counts: null });
    const res = await send(file, type, csrf(), (sent, total, text) =>
      setPhase({ phase: 'sending', sent, total, counts: text === '' ? null : readUploadStream(text, false).progress }),
    );
    if (res.status === 401) return signedOut();
    const next = outcome(res.status, res.text);
    setPhase(next);
    if (next.phase === 'done' && next.summary.accepted > 0) props.onUploaded();
  }

  const sending = phase.phase === 'sending';
  const invalid = (errors.byInput.file?.length ?? 0) > 0;
  return (
    <section aria-labelledby="upload-title" class="hub-section upload">
      <h2 id="upload-title">Upload historical usage</h2>
      <p>
        Send past usage as a file: a CSV with a header row, or NDJSON (one JSON event per line, the same fields as the API). Good lines are stored and bad ones
        reported by line number; nothing is stored twice for an event id seen in the last 24 hours, so you can send a file again after an interruption.
      </p>
      <dl class="columns" id="upload-columns">
        <dt>metricName</dt>
        <dd>Required. The metric, as your plan names it.</dd>
        <dt>quantity</dt>
        <dd>Required. A decimal number such as 12 or 0.25.</dd>
        <dt>occurredAt</dt>
        <dd>Required. When it happened, such as 2026-01-14T09:30:00Z; any age, at most 5 minutes ahead.</dd>
        <dt>eventId</dt>
        <dd>Optional, and wise: your unique id of the event, so that a repeat is skipped.</dd>
        <dt>customerId</dt>
        <dd>Optional: the usage is always yours. Another customer's id is rejected.</dd>
        <dt>metadata.&lt;key&gt;</dt>
        <dd>Optional columns: each non-empty cell becomes a metadata value.</dd>
      </dl>
      <p class="muted">
        Example: <code class="example">metricName,quantity,occurredAt,eventId</code> then <code class="example">api_calls,120,2026-01-14T09:30:00Z,ev-1</code>.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div class="field">
          <label for="upload-file">Usage file (.csv, .ndjson or .jsonl)</label>
          <input
            ref={input}
            id="upload-file"
            name="file"
            type="file"
            accept={ACCEPT}
            disabled={sending}
            aria-invalid={invalid ? 'true' : undefined}
            aria-describedby={invalid ? `upload-columns ${errorIdOf('file')}` : 'upload-columns'}
          />
          <FieldErrors errors={errors} name="file" />
        </div>
        <button type="submit" class="primary" disabled={sending}>
          Upload
        </button>
      </form>
      {sending && (
        <div class="upload-progress">
          <progress value={phase.sent} max={Math.max(phase.total, 1)} aria-label="Upload progress" />
          <p role="status">{progressText(phase.sent, phase.total, phase.counts)}</p>
        </div>
      )}
      {phase.phase === 'failed' && <ProblemMessage problem={phase.problem} />}
      {phase.phase === 'done' && <Report summary={phase.summary} />}
    </section>
  );
}

/** The upload's report: counts, said once (role=status), and the rejected lines in a table. */
function Report(props: { summary: UploadSummary }) {
  const s = props.summary;
  const truncated = truncatedText(s);
  return (
    <div class="upload-report">
      <p role="status" class="notice">
        Upload finished. {summaryText(s)}
      </p>
      {truncated && <p>{truncated}</p>}
      {s.errors.length > 0 && (
        <div class="table-scroll" role="region" aria-label="Rejected lines" tabIndex={0}>
          <table>
            <caption>Rejected lines: why each was not stored</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Field</th>
                <th scope="col">Problem</th>
              </tr>
            </thead>
            <tbody>
              {s.errors.map((e, i) => {
                const column = problemColumn(e);
                return (
                  <tr key={`${e.line}-${i}`}>
                    <th scope="row">{e.line}</th>
                    <td>{column === null ? 'the whole line' : <code>{column}</code>}</td>
                    <td>{problemSentence(e)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
