import type { Kysely } from 'kysely';

/**
 * Where rating reads a metric's dimensions in event metadata (issue 38, item 7: metadata may nest,
 * so the execution status, tool and endpoint may sit at a dotted path such as call.tool): JSON text
 * of the three paths, set when the metric is created. Existing metrics keep null, which means the
 * top-level keys executionStatus, tool and endpoint that every event was summed by until now, so
 * nothing stored needs rewriting. Numbered 0024: 0022, 0023 and 0025 were written at the same time
 * and touch other tables, so any order works.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('metrics').addColumn('dimension_paths', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('metrics').dropColumn('dimension_paths').execute();
}
