import { PassThrough, type Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { UsageWriter } from './usage-writer.js';
import { admission } from '../../http/admission.js';
import { watchUploadProgress } from '../../http/slow-clients.js';
import { databaseFailureError } from '../../db/errors.js';
import { AppError, envelope } from '../../lib/errors.js';
import type { App, AuthRequirement } from '../../http/types.js';
import { bearerSecurity, Environment, errors } from '../../http/schemas.js';
import { openUpload, type UploadFormat, type UploadLine } from './upload-format.js';
import { MAX_REPORTED_ERRORS, PROGRESS_EVERY_LINES, uploadUsage, type UploadProgress, type UploadReport } from './upload-usage.js';

const counts = {
  lines: Type.Integer({ description: 'Event lines read so far (blank lines and the CSV header are not counted): accepted + duplicates + rejected.' }),
  accepted: Type.Integer({ description: 'Events stored and counted.' }),
  duplicates: Type.Integer({ description: 'Events skipped because their eventId was seen in the last 24 hours (or earlier in the upload).' }),
  rejected: Type.Integer({ description: 'Lines rejected, all of them (errors lists at most the first 1,000).' }),
};

const UploadSummarySchema = Type.Object({
  object: Type.Literal('usage_upload'),
  environment: Environment,
  ...counts,
  errors: Type.Array(
    Type.Object({
      line: Type.Integer({
        description: 'Line number in the file, counting from 1 (the CSV header is line 1); a CSV record spanning lines is named by its first.',
      }),
      code: Type.String({
        description: 'The same codes as the ingestion API: UNKNOWN_METRIC, NEGATIVE_QUANTITY, INVALID_EVENT (also for a line that is not valid JSON or CSV), …',
      }),
      message: Type.String(),
      field: Type.String({ description: 'Such as `line 12.quantity`, or `line 12` for the whole line.' }),
    }),
    { description: `The first ${MAX_REPORTED_ERRORS} problems of rejected lines, in line order; a line with several problems has one entry for each.` },
  ),
  errorsTruncated: Type.Boolean({
    description: `True when errors stops short (more than ${MAX_REPORTED_ERRORS} problems); rejected has the full count of lines.`,
  }),
});
const UploadProgressSchema = Type.Object({ object: Type.Literal('usage_upload_progress'), ...counts });

type UploadSummary = Static<typeof UploadSummarySchema>;

/** What the content-type parsers hand the handler: the request stream, unread. */
interface UploadBody {
  format: UploadFormat;
  stream: Readable;
}

const TYPES = 'Content-Type application/x-ndjson (one JSON event per line) or text/csv (a header row, then one event per row)';
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

function streamParser(format: UploadFormat) {
  return (req: FastifyRequest, payload: Readable, done: (err: Error | null, body?: UploadBody) => void) => {
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
      return done(new AppError('UNSUPPORTED_MEDIA_TYPE', `Uploads are read as UTF-8; this one declares charset=${charset}. Convert the file to UTF-8.`));
    }
    done(null, { format, stream: payload });
  };
}

function isUploadBody(body: unknown): body is UploadBody {
  return typeof body === 'object' && body !== null && 'stream' in body && 'format' in body;
}

const wantsProgress = (req: FastifyRequest) => (req.headers.accept ?? '').toLowerCase().includes('application/x-ndjson');

/** What differs between the operator's upload route and the developer hub's: the rest is one route. */
export interface UploadRouteSpec {
  path: string;
  auth: AuthRequirement;
  operationId: string;
  summary: string;
  /** The description's paragraphs. */
  description: string[];
  tags: string[];
  security: typeof bearerSecurity;
  /** Required CSV columns the route fills in itself (the hub's customerId). */
  optionalColumns?: readonly string[];
  /** Maps the upload's lines before they are checked (the hub confines them to its customer). */
  lines?: (req: FastifyRequest, lines: AsyncIterable<UploadLine>) => Promise<AsyncIterable<UploadLine>>;
}

/** The upload format's documentation, shared by both routes. */
export const UPLOAD_FORMAT_DOCS = [
  '**Formats.** `application/x-ndjson`: one usage event per line, with the same fields as the ingestion API (customerId, metricName, quantity, occurredAt, optional metadata object, nested or not, and eventId); blank lines are skipped. `text/csv` (RFC 4180 quoting, UTF-8): a header row naming the columns customerId, metricName, quantity and occurredAt, optionally eventId, and `metadata.<key>` columns whose cells become top-level metadata string values (a dot in the key is part of the key, as before: CSV metadata does not nest, NDJSON metadata may); quantity is read strictly as a decimal number (such as 12 or 0.25); empty cells are left out (an empty metadata cell adds no key). A CSV header without a required column, or with an unknown one, is a 400 and nothing is stored. Any other Content-Type is a 415.',
  '',
  '**Partially accepted.** Unlike an API batch (all or nothing), an upload stores its good lines and reports its bad ones. Lines are checked by the same rules as the API, except that events of any age are accepted (never more than 5 minutes in the future). They are processed in chunks of 1,000 lines; each chunk is committed before the next is read, so if the connection breaks, the chunks before it stay stored.',
  '',
  '**Safe to send again.** Give each line an eventId: an event whose eventId was seen in the last 24 hours is skipped and counted in duplicates, so re-uploading a file after an interruption stores nothing twice. Lines without an eventId are stored every time they are sent.',
  '',
  `**Size and memory.** The size of an upload is unlimited (BODY_LIMIT_BYTES does not apply): the body is streamed, never held whole. A line (or CSV record) may be at most 64 KiB. The report keeps the first ${MAX_REPORTED_ERRORS} line errors (every problem of a line) and counts every rejected line.`,
  '',
  `**Response.** 200 when the upload ends, even if lines were rejected: \`{"object": "usage_upload", "environment", "lines", "accepted", "duplicates", "rejected", "errors": [{"line", "code", "message", "field"}], "errorsTruncated"}\`. With \`Accept: application/x-ndjson\` the response is streamed as NDJSON instead: a \`{"object": "usage_upload_progress", "lines", "accepted", "duplicates", "rejected"}\` line after every ${PROGRESS_EVERY_LINES.toLocaleString('en-US')} lines, then the summary as the last line. If the upload fails after a streamed response has begun, the last line is the error envelope instead of the summary. No audit event of its own: each chunk records usage.batch_ingested with source upload.`,
];

export async function uploadRoutes(app: App, deps: Deps, writer: UsageWriter): Promise<void> {
  await uploadRoute(app, deps, writer, {
    path: '/api/v1/usage/uploads',
    auth: { kind: 'workspace', scope: 'admin' },
    operationId: 'uploadUsage',
    summary: 'Upload historical usage: NDJSON or CSV, any size, with a per-line report',
    description: [
      'For historical and bulk usage, which the spec sends as a file rather than through the ingestion API. The key (admin scope) decides the workspace and environment.',
      '',
      ...UPLOAD_FORMAT_DOCS,
    ],
    tags: ['Usage ingestion'],
    security: bearerSecurity,
  });
}

/** Registers one upload route: streamed, partially accepted, with a per-line report. */
export async function uploadRoute(app: App, deps: Deps, writer: UsageWriter, spec: UploadRouteSpec): Promise<void> {
  // Its own scope, so these parsers (which leave the body unread) apply to this route only.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-ndjson', streamParser('ndjson'));
    scope.addContentTypeParser('text/csv', streamParser('csv'));
    scope.addContentTypeParser('*', (req, _payload, done) => {
      const got = req.headers['content-type'];
      done(new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the file with ${TYPES}; ${got ? `got ${got}` : 'the request has no Content-Type'}.`));
    });

    scope.post(spec.path, {
      // Streamed for as long as the file takes: no body deadline, but it must keep sending.
      config: { auth: spec.auth, streamsBody: true },
      // An upload holds its slot for as long as the file takes: a cap of its own, apart from the API's.
      ...admission(() => deps.config.uploadMaxConcurrent, 'uploads', deps.metrics.admission('upload')),
      // The body is streamed in bounded memory, so its size is not limited (Fastify does not apply
      // bodyLimit to a parser that takes the stream; this says so on the route as well).
      bodyLimit: Number.MAX_SAFE_INTEGER,
      // The body schema only documents the upload: the body is a stream, read line by line.
      validatorCompiler: () => () => true,
      schema: {
        operationId: spec.operationId,
        summary: spec.summary,
        description: spec.description.join('\n'),
        tags: spec.tags,
        security: spec.security,
        consumes: ['application/x-ndjson', 'text/csv'],
        body: Type.String({
          format: 'binary',
          description: 'The file: NDJSON (one event per line) or CSV (a header row, then one event per row); any size, each line at most 64 KiB.',
        }),
        response: {
          200: {
            description: 'The upload report (JSON), or with Accept: application/x-ndjson, progress lines then the report (NDJSON).',
            content: {
              'application/json': { schema: UploadSummarySchema },
              'application/x-ndjson': {
                schema: Type.Union([UploadProgressSchema, UploadSummarySchema], { description: 'Each line is one of these; the last is the summary.' }),
              },
            },
          },
          ...errors(403, 415),
        },
      },
      handler: async (req, reply) => {
        if (!isUploadBody(req.body)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the file as the request body, with ${TYPES}.`);
        watchUploadProgress(req.raw, reply.raw, deps.config.uploadIdleTimeoutMs);
        const opened = await openUpload(req.body.format, req.body.stream, spec.optionalColumns);
        const lines = spec.lines ? await spec.lines(req, opened) : opened;
        const summary = (r: UploadReport): UploadSummary => ({ object: 'usage_upload', environment: req.ctx.environment, ...r });
        if (!wantsProgress(req)) return summary(await uploadUsage(deps, writer, req.ctx, lines));

        const out = new PassThrough();
        out.on('error', () => {}); // the client went away; the upload's own read fails and ends the work
        const writeLine = (value: unknown) => {
          if (!out.destroyed && !out.writableEnded) out.write(`${JSON.stringify(value)}\n`);
        };
        const onProgress = (p: UploadProgress) => writeLine({ object: 'usage_upload_progress', ...p });
        void uploadUsage(deps, writer, req.ctx, lines, { onProgress })
          .then((report) => writeLine(summary(report)))
          .catch((err: unknown) => {
            if (err instanceof AppError) return writeLine(envelope(err.details));
            const unavailable = databaseFailureError(err);
            if (unavailable) return writeLine(envelope(unavailable.details));
            req.log.error({ err }, 'upload failed after its response began');
            writeLine(envelope([{ code: 'INTERNAL_ERROR', message: `An internal error occurred. Quote request id ${req.id} when reporting it.` }]));
          })
          .finally(() => out.end());
        return reply.type('application/x-ndjson; charset=utf-8').send(out);
      },
    });
  });
}
