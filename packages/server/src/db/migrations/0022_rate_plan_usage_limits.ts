import type { Kysely } from 'kysely';

/**
 * Default usage limits on rate plans (issue 38): JSON text, an array of {metricName, limit,
 * enforcement} read and written whole with the plan, like its units. Existing plans have none,
 * which is what they enforced until now.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('rate_plans')
    .addColumn('usage_limits', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rate_plans').dropColumn('usage_limits').execute();
}
