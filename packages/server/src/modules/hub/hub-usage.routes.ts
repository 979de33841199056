import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { Type } from '@sinclair/typebox';
import { errors, ListOf } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { hubSecurity } from '../hub-sessions/hub-session.routes.js';
import { hubSessionOf } from '../hub-sessions/hub-session-of.js';
import { findCustomer } from '../customers/customer.repository.js';
import { dailyUsage, DailyUsageQuery, UsageDaySchema } from '../usage/daily-usage.js';
import type { UsageWriter } from '../usage/usage-writer.js';
import { UPLOAD_FORMAT_DOCS, uploadRoute } from '../usage/upload.routes.js';
import { confineToCustomer, mapUploadLines } from '../usage/upload-usage.js';

const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Developer hub'];
// The customer is the session's: the query cannot name another.
const { customerId: _customerId, ...dailyFields } = DailyUsageQuery.properties;
const HubDailyUsageQuery = Type.Object(dailyFields, { additionalProperties: false });

/** The hub's usage charts and its historical upload: the operator routes' operations with the session's customer fixed. */
export async function hubUsageRoutes(app: App, deps: Deps, writer: UsageWriter): Promise<void> {
  app.get('/api/v1/hub/usage/daily', {
    config: hub,
    schema: {
      operationId: 'retrieveHubDailyUsage',
      summary: "The customer's usage per UTC day and metric (sum and count)",
      description:
        "For the hub's charts: GET /api/v1/usage/daily for the hub session's customer only, from `from` to `to` inclusive (at most 93 days). Days without usage have no row; sums are exact decimals.",
      tags,
      security: hubSecurity,
      querystring: HubDailyUsageQuery,
      response: { 200: ListOf(UsageDaySchema), ...errors() },
    },
    handler: async (req) => {
      const data = await dailyUsage(deps, req.ctx, { ...req.query, customerId: hubSessionOf(req).customerId });
      return { object: 'list' as const, data, hasMore: false };
    },
  });

  await uploadRoute(app, deps, writer, {
    path: '/api/v1/hub/usage/uploads',
    auth: hub.auth,
    operationId: 'uploadHubUsage',
    summary: "Upload the customer's historical usage: NDJSON or CSV, with a per-line report",
    description: [
      "The operator's upload (POST /api/v1/usage/uploads), from the developer hub and for the hub session's customer only, as the spec directs bulk historical data to a file upload in the hub. Needs X-CSRF-Token.",
      '',
      "**The customer is the session's.** customerId may be left out (a CSV needs no customerId column): the line is the session's customer's. A line that names the customer by id or externalId is taken; a line that names anyone else is rejected (INVALID_EVENT on `line N.customerId`), in the same words whether that customer exists or not.",
      '',
      ...UPLOAD_FORMAT_DOCS,
    ],
    tags,
    security: hubSecurity,
    optionalColumns: ['customerId'],
    lines: async (req, lines) => {
      const customer = await findCustomer(deps.db, req.ctx, hubSessionOf(req).customerId);
      // The session names a customer that is gone: nothing of theirs to upload to.
      if (!customer) throw new AppError('NOT_FOUND', "The hub session's customer no longer exists.");
      const own = { id: customer.id, externalId: customer.externalId };
      return mapUploadLines(lines, (line) => confineToCustomer(line, own));
    },
  });
}
