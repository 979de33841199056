import type { Kysely } from 'kysely';

/**
 * How a storefront's pricing page looks (issue 23): per offering a call to action and a
 * "highlighted" flag, and the seller's theme. JSON text, one document per side: the draft, and
 * what was last published (null for rows published before this migration: they read as the
 * empty display, which is what they showed).
 */
const EMPTY_DISPLAY = '{"offerings":[],"theme":{}}';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('storefronts')
    .addColumn('draft_display', 'text', (c) => c.notNull().defaultTo(EMPTY_DISPLAY))
    .execute();
  await db.schema.alterTable('storefronts').addColumn('published_display', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('storefronts').dropColumn('published_display').execute();
  await db.schema.alterTable('storefronts').dropColumn('draft_display').execute();
}
