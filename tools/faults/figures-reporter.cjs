// Prints the figures every fault recorded (tools/faults/support/figures.ts) once the run is over,
// with the run's total duration: the numbers the fault suite exists to produce.
'use strict';

const { existsSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

class FaultFiguresReporter {
  onRunComplete(_contexts, results) {
    const file = join(__dirname, '..', '..', 'tmp', 'faults', `figures-${process.env.TEST_RUN_ID ?? 'local'}.jsonl`);
    const entries = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    rmSync(file, { force: true });
    const total = ((Date.now() - results.startTime) / 1000).toFixed(0);
    const verdict = results.numFailedTests + results.numRuntimeErrorTestSuites === 0 ? 'all passed' : `${results.numFailedTests} failed`;
    const lines = [
      '',
      `Fault figures (${results.numTotalTests} faults, ${verdict}, ${total} s in total):`,
      ...entries.map((entry) => `  - ${entry.fault}: ${entry.figures}`),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

module.exports = FaultFiguresReporter;
