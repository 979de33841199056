import { CompiledQuery, createQueryId, type KyselyPlugin, type RootOperationNode } from 'kysely';
import type { Deps } from '../../src/deps.js';
import { backend } from './test-app.js';

export interface QueryPlan {
  sql: string;
  /** EXPLAIN QUERY PLAN's details on SQLite, EXPLAIN's lines on PostgreSQL, one per line. */
  plan: string;
}

/**
 * Deps whose database records every statement it runs, and `plans()` to explain those that name a
 * table matching `tables`, with the parameters they ran with.
 */
export function recordingPlans(deps: Deps, tables: RegExp): { deps: Deps; plans: () => Promise<QueryPlan[]> } {
  // By query id, and kept only once it has run: a builder passed into another (the parts of a
  // UNION ALL) is transformed too, but only the statement that contains it runs.
  const seen = new Map<string, RootOperationNode>();
  const nodes: RootOperationNode[] = [];
  const recorder: KyselyPlugin = {
    transformQuery: (args) => {
      seen.set(args.queryId.queryId, args.node);
      return args.node;
    },
    transformResult: async (args) => {
      const node = seen.get(args.queryId.queryId);
      if (node) nodes.push(node);
      return args.result;
    },
  };
  return {
    deps: { ...deps, db: deps.db.withPlugin(recorder) },
    async plans() {
      const out: QueryPlan[] = [];
      for (const node of nodes) {
        const compiled = deps.db.getExecutor().compileQuery(node, createQueryId());
        if (!tables.test(compiled.sql)) continue;
        const prefix = backend === 'postgres' ? 'explain ' : 'explain query plan ';
        const { rows } = await deps.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
        out.push({ sql: compiled.sql, plan: rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n') });
      }
      return out;
    },
  };
}
