import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { AdmissionMeter } from '../lib/metrics.js';

/**
 * Admission control: at most `limit` requests of a kind in process at once; the excess is
 * answered at once with 503 and Retry-After. Queueing without bound turns a burst into seconds of
 * latency for everyone. Spread the returned hooks into the routes' options.
 *
 * A request counts from preHandler on, once its body has been read: counted from its headers, a
 * few clients sending their bodies slowly held every slot while the server sat idle. It is also
 * turned away at its headers when the slots are full then, so that shedding a burst costs no body
 * parsing (a 1,000-event batch is 200 KB of JSON). (A streamed upload's body is read by its
 * handler, so it counts from the start, watched by http/slow-clients.ts.)
 *
 * `meter` (deps.metrics.admission(kind)) reads the count at scrape time and counts each request shed.
 */
export function admission(limit: () => number, what: string, meter?: AdmissionMeter) {
  let inFlight = 0;
  meter?.track(() => inFlight, limit);
  const admitted = new WeakSet<FastifyRequest>();
  const release = async (req: FastifyRequest) => {
    if (admitted.delete(req)) inFlight -= 1;
  };
  const refuseWhenFull = (reply: FastifyReply) => {
    if (inFlight >= limit()) {
      meter?.shed.inc();
      reply.header('retry-after', '1');
      throw new AppError('SERVICE_UNAVAILABLE', `This server is processing ${inFlight} ${what}; retry after 1 second.`);
    }
  };
  return {
    onRequest: async (_req: FastifyRequest, reply: FastifyReply) => refuseWhenFull(reply),
    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      refuseWhenFull(reply);
      inFlight += 1;
      admitted.add(req);
    },
    onResponse: release,
    onRequestAbort: release,
  };
}
