import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createTestApp } from './helpers/test-app.js';

it('without TOLLGATE_ENCRYPTION_KEYS the development-key warning is logged once per data directory, when its key file is made', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tollgate-devkey-'));
  const warnings = async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const t = await createTestApp({ config: { encryptionKeys: null, dataDir }, log: pino({ level: 'info' }, sink) });
    await t.close();
    return lines.filter((l) => l.includes('TOLLGATE_ENCRYPTION_KEYS is not set'));
  };
  try {
    const first = await warnings();
    assert.equal(first.length, 1, 'the first start in a data directory warns');
    assert.match(first[0]!, /"created":true/);
    assert.deepEqual(await warnings(), [], 'later starts and commands in it do not');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
