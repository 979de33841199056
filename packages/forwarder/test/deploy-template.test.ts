// deploy/template.yaml, the SAM template a user deploys: validated by cfn-lint (AWS's
// CloudFormation linter, which expands the SAM transform and knows each resource's properties and
// the runtimes Lambda still accepts), and held to the code: its handler is an export of the
// package and its environment is what readForwarderConfig reads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import * as forwarder from '../src/index.js';
import { readForwarderConfig } from '../src/forwarder-config.js';

const templatePath = fileURLToPath(new URL('../deploy/template.yaml', import.meta.url));

// CloudFormation's short-form tags (!Ref, !GetAtt, !Sub) kept as plain values for reading.
const cfnTags = ['Ref', 'GetAtt', 'Sub'].map((tag) => ({ tag: `!${tag}`, resolve: (value: string) => ({ [tag]: value }) }));
const template = parse(readFileSync(templatePath, 'utf8'), { customTags: cfnTags }) as {
  Resources: { ForwarderFunction: { Properties: { Handler: string; Runtime: string; Environment: { Variables: Record<string, unknown> } } } };
};
const fn = template.Resources.ForwarderFunction.Properties;

const cfnLint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const noLinter = cfnLint.error ? 'cfn-lint is not installed (pip install cfn-lint); the template is not validated here' : false;
if (noLinter) console.log(`# skipped: ${noLinter}`);

describe('deploy/template.yaml', () => {
  it('passes cfn-lint: valid SAM and CloudFormation, a runtime Lambda still accepts', { skip: noLinter }, () => {
    const r = spawnSync('cfn-lint', [templatePath], { encoding: 'utf8' });
    assert.equal(`${r.stdout}${r.stderr}`, '');
    assert.equal(r.status, 0);
  });

  it('its handler is the package’s handler export, built into dist/index.js', () => {
    assert.equal(fn.Handler, 'dist/index.handler');
    assert.equal(typeof forwarder.handler, 'function');
    assert.match(fn.Runtime, /^nodejs(2[0-9])\.x$/);
  });

  it('its environment is what the forwarder reads: each variable it sets is one readForwarderConfig takes', () => {
    const names = Object.keys(fn.Environment.Variables).sort();
    assert.deepEqual(names, ['TOLLGATE_API_KEY', 'TOLLGATE_CONSUMER_FIELD', 'TOLLGATE_METRIC_NAME', 'TOLLGATE_URL']);
    const config = readForwarderConfig({
      TOLLGATE_URL: 'https://tollgate.example.com',
      TOLLGATE_API_KEY: 'sk_live_x',
      TOLLGATE_CONSUMER_FIELD: 'consumerId',
      TOLLGATE_METRIC_NAME: 'gateway_calls',
    });
    assert.deepEqual(config.mapping, { consumerField: 'consumerId', metricName: 'gateway_calls' });
  });
});
