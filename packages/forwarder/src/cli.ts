#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { Forwarder } from './forwarder.js';
import { readForwarderConfig } from './forwarder-config.js';
import { createSdkBatchSender } from './sdk-batch-sender.js';
import { ProgressBar } from './progress-bar.js';
import { replayFile } from './replay-file.js';
import { formatSummary } from './format-summary.js';
import { ForwarderError } from './types.js';

const USAGE = `Usage: tollgate-forwarder replay FILE [options]

Sends API Gateway access-log lines to Tollgate as usage events (metric api_calls, quantity 1).
FILE is a saved CloudWatch Logs subscription event ({"awslogs":{"data":…}}, or its decoded
JSON), or NDJSON: one per line, subscription events, CloudWatch log events ({id, timestamp,
message}) or access-log lines with a timestamp (ms or ISO 8601) or requestTimeEpoch field.

Options (each defaults to the environment variable named):
  --url URL              Tollgate's base URL                  TOLLGATE_URL
  --key KEY              a workspace key with the ingest scope TOLLGATE_API_KEY
  --consumer-field NAME  the field holding the consumer       TOLLGATE_CONSUMER_FIELD (apiKeyId)
  --metric NAME          the metric each request counts as    TOLLGATE_METRIC_NAME (api_calls)
  --concurrency N        batches in flight (default 4)
  --json                 print the summary as JSON

Exit status: 0 when every line was sent or skipped for a reason, 1 when the server refused
events or a batch could not be delivered, 2 on a usage error.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        'consumer-field': { type: 'string' },
        metric: { type: 'string' },
        concurrency: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, file, ...extra] = positionals;
  if (command !== 'replay' || !file || extra.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = readForwarderConfig({
    TOLLGATE_URL: values.url ?? process.env.TOLLGATE_URL,
    TOLLGATE_API_KEY: values.key ?? process.env.TOLLGATE_API_KEY,
    TOLLGATE_CONSUMER_FIELD: values['consumer-field'] ?? process.env.TOLLGATE_CONSUMER_FIELD,
    TOLLGATE_METRIC_NAME: values.metric ?? process.env.TOLLGATE_METRIC_NAME,
  });
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ForwarderError('INVALID_CONFIG', `--concurrency must be a positive whole number, got ${values.concurrency}`);

  const bar = new ProgressBar(process.stderr);
  const forwarder = new Forwarder({ sender: createSdkBatchSender({ url: config.url, apiKey: config.apiKey }), mapping: config.mapping, concurrency });
  let failure: unknown = null;
  try {
    await replayFile(file, forwarder, {
      onProgress: (read, size) =>
        bar.update(read, size, `${forwarder.summary.logEvents.toLocaleString('en-US')} lines, ${forwarder.summary.sent.toLocaleString('en-US')} sent`),
    });
  } catch (err) {
    failure = err;
  }
  try {
    await forwarder.finish();
  } catch (err) {
    failure ??= err;
  }
  bar.done();
  const s = forwarder.summary;
  process.stdout.write(`${values.json ? JSON.stringify(s) : formatSummary(s)}\n`);
  if (failure !== null) {
    process.stderr.write(`tollgate-forwarder: ${(failure as Error).message}\n`);
    return 1;
  }
  return Object.keys(s.rejected).length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`tollgate-forwarder: ${err instanceof ForwarderError ? err.message : String((err as Error)?.stack ?? err)}\n`);
    process.exit(2);
  },
);
