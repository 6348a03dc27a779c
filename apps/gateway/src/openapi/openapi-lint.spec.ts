// The served OpenAPI document through Redocly's `recommended` rules, as an integrator's tooling
// would take it (docs/api.md, "OpenAPI document"): the CLI the project pins, on the exact bytes
// GET /api/openapi.json answers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { openApiRoute } from './openapi-route';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/**
 * Warnings left on purpose: OPTIONS answers nothing but 204 on a path the gateway has
 * (allowed-methods.ts), so it has no 4XX to list; and no licence is granted for the interface.
 */
const ACCEPTED_WARNINGS: { ruleId: string; pointer: RegExp }[] = [
  { ruleId: 'operation-4xx-response', pointer: /^#\/paths\/[^/]+\/options\/responses$/ },
  { ruleId: 'info-license', pointer: /^#\/info$/ },
];

/** Redocly CLI's `lint` on a document; the problems it reports (its JSON format). */
function redoclyLint(documentText: string): LintProblem[] {
  const folder = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, documentText);
    // Run in the empty folder, so that no redocly.yaml around adds or changes rules; no telemetry or update check.
    const run = spawnSync(
      process.execPath,
      [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--extends', 'recommended', '--format', 'json', '--max-problems', '10000', file],
      {
        cwd: folder,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 30_000,
      },
    );
    if (!run.stdout.trim().startsWith('{')) throw new Error(`redocly lint printed no report (exit ${run.status}): ${run.stderr}`);
    return (JSON.parse(run.stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const described = (problem: LintProblem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`;

describe("the OpenAPI document under Redocly's recommended rules", () => {
  let served: string;
  let problems: LintProblem[];

  beforeAll(async () => {
    const answer = await request(express().get('/api/openapi.json', openApiRoute())).get('/api/openapi.json').set('host', 'api.example');
    expect(answer.status).toBe(200);
    served = answer.text;
    problems = redoclyLint(served);
  });

  it('has no errors', () => {
    expect(problems.filter((problem) => problem.severity === 'error').map(described)).toEqual([]);
  });

  it('has no warnings but those it has a reason for', () => {
    const unaccepted = problems.filter(
      (problem) =>
        problem.severity !== 'error' &&
        !ACCEPTED_WARNINGS.some(({ ruleId, pointer }) => problem.ruleId === ruleId && pointer.test(problem.location[0]?.pointer ?? '')),
    );
    expect(unaccepted.map(described)).toEqual([]);
  });

  it('reports an open operation that does not say `security: []`, and one without an operationId', () => {
    const document = JSON.parse(served) as { paths: Record<string, Record<string, { security?: unknown; operationId?: string }>> };
    const login = document.paths['/api/v1/token/login']?.post;
    delete login?.security;
    delete login?.operationId;
    const found = redoclyLint(JSON.stringify(document)).filter((problem) => problem.severity === 'error' || problem.ruleId === 'operation-operationId');
    expect(found.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}`)).toEqual([
      'error security-defined #/paths/~1api~1v1~1token~1login/post',
      'warn operation-operationId #/paths/~1api~1v1~1token~1login/post/operationId',
    ]);
  });
});
