import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { LogEvent } from '../src/types.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** AWS's documented samples, kept beside the repository (../shared/testdata), wherever this clone sits. */
export const sampleDir = [path.join(root, '../shared/testdata/aws-cloudwatch'), '/work/shared/testdata/aws-cloudwatch'].find((d) => existsSync(d)) ?? '';

/** A REST API access-log line in AWS's documented JSON format: every `$context` value a string, "-" when missing. */
export function accessLogLine(over: Record<string, string> = {}): Record<string, string> {
  return {
    requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    extendedRequestId: 'ABCDEFGHIJKLMNO=',
    ip: '203.0.113.7',
    requestTime: '15/Jan/2026:11:58:30 +0000',
    requestTimeEpoch: '1768478310000',
    httpMethod: 'GET',
    resourcePath: '/pets/{petId}',
    path: '/prod/pets/42',
    status: '200',
    protocol: 'HTTP/1.1',
    responseLength: '87',
    responseLatency: '31',
    integrationLatency: '27',
    apiKeyId: 'key-acme',
    ...over,
  };
}

/** A CloudWatch Logs subscription event as Lambda receives it: base64 of gzip. */
export function subscriptionEvent(logEvents: LogEvent[], messageType: 'DATA_MESSAGE' | 'CONTROL_MESSAGE' = 'DATA_MESSAGE') {
  const decoded = {
    messageType,
    owner: '123456789012',
    logGroup: 'API-Gateway-Execution-Logs_abc123/prod',
    logStream: '0f8e7d6c5b4a39281706f5e4d3c2b1a0',
    subscriptionFilters: ['tollgate'],
    logEvents,
  };
  return { awslogs: { data: gzipSync(JSON.stringify(decoded)).toString('base64') } };
}

/** A command run as a user runs it, with only PATH and `env` (never this process's environment); asynchronous, so a server in this process keeps answering. */
export function runCommand(command: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
