// The reporter scripts/test.mjs gives each test file's process: each failure in full as it
// happens, each skip with its reason, and one last line the runner reads for the file's counts:
//   ##tollgate {"pass":N,"fail":N,"skipped":N,"todo":N,"cancelled":N,"cpuMs":N}
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';

function describeError(error) {
  // The runner wraps a test's error in one that says "test failed"; its cause is the test's own.
  const inner = error?.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  return inspect(inner, { depth: 6, colors: false })
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}

/**
 * The CPU this file's process has used so far, with the children it has waited for (the servers
 * and browsers it started): on two cores the suite's length is its CPU, so the runner ranks by it.
 * From /proc on Linux (clock ticks of 10 ms); elsewhere the process's own.
 */
function cpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime, cstime: fields 14 to 17 of stat, 12 to 15 after the name.
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
  } catch {
    const { user, system } = process.cpuUsage();
    return Math.round((user + system) / 1000);
  }
}

export default async function* fileReporter(source) {
  const counts = { pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
  const path = []; // names of the enclosing suites, by nesting
  for await (const { type, data } of source) {
    if (type === 'test:start') {
      path[data.nesting] = data.name;
      path.length = data.nesting + 1;
    } else if (type === 'test:pass' || type === 'test:fail') {
      if (data.details?.type === 'suite') {
        // A skipped suite runs none of its tests: it counts as one skip, with its reason.
        if (data.skip !== undefined && data.skip !== false) {
          counts.skipped += 1;
          yield `  - skipped: ${[...path.slice(0, data.nesting), data.name].join(' > ')}${typeof data.skip === 'string' ? `: ${data.skip}` : ''}\n`;
          continue;
        }
        // A suite fails on its own only when its hooks do; its tests are counted one by one.
        if (type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
          counts.fail += 1;
          yield `  ✖ ${data.name} (suite)\n${describeError(data.details.error)}\n`;
        }
        continue;
      }
      const name = [...path.slice(0, data.nesting), data.name].join(' > ');
      if (data.skip !== undefined && data.skip !== false) {
        counts.skipped += 1;
        yield `  - skipped: ${name}${typeof data.skip === 'string' ? `: ${data.skip}` : ''}\n`;
      } else if (data.todo !== undefined && data.todo !== false) {
        counts.todo += 1;
      } else if (type === 'test:pass') {
        counts.pass += 1;
      } else if (data.details?.error?.failureType === 'cancelledByParent') {
        counts.cancelled += 1;
      } else {
        counts.fail += 1;
        yield `  ✖ ${name}\n${describeError(data.details?.error)}\n`;
      }
    } else if (type === 'test:diagnostic' && data.nesting > 0) {
      yield `  ℹ ${data.message}\n`;
    }
  }
  yield `##tollgate ${JSON.stringify({ ...counts, cpuMs: cpuMs() })}\n`;
}
