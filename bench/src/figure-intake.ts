import { fork } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@bedrequest/testing';
import { bundleFactory } from './bundles';
import { closedLoop, summarize, type LoadResult } from './load';

async function startBaseline(mode: 'express' | 'http') {
  const port = await freePort();
  const child = fork(join(__dirname, 'baseline-server.cjs'), [mode, String(port)], { stdio: 'ignore' });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/**
 * Figure 1: accepted bundles per second and latency of POST /api/v2/fhir/Bundle (bearer auth,
 * validation, durable publish, intake's verdict), against a bare express route parsing the same
 * body and a node:http hello world, interleaved in one run.
 */
export async function intakeFigure(options: { gatewayUrl: string; token: string; performerIks: string[]; runs: number; seconds: number; connections: number }) {
  const bundles = bundleFactory(options.performerIks);
  const express = await startBaseline('express');
  const hello = await startBaseline('http');
  const results: Record<'intake' | 'expressBaseline' | 'httpHelloWorld', LoadResult[]> = { intake: [], expressBaseline: [], httpHelloWorld: [] };
  try {
    for (let run = 0; run < options.runs; run++) {
      const post = (url: string, token?: string) =>
        closedLoop({
          url: `${url}/api/v2/fhir/Bundle`,
          method: 'POST',
          headers: { 'content-type': 'application/fhir+json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: () => bundles.next().body,
          connections: options.connections,
          durationSeconds: options.seconds,
        });
      results.intake.push(await post(options.gatewayUrl, options.token));
      results.expressBaseline.push(await post(express.url));
      results.httpHelloWorld.push(await closedLoop({ url: hello.url, connections: options.connections, durationSeconds: options.seconds }));
    }
  } finally {
    express.stop();
    hello.stop();
  }
  const rate = (list: LoadResult[]) => summarize(list.map((result) => result.okPerSecond));
  const ratios = results.intake.map((result, index) => result.okPerSecond / results.expressBaseline[index]!.okPerSecond);
  return {
    bundleBytes: bundles.bytes,
    connections: options.connections,
    secondsPerRun: options.seconds,
    intake: {
      acceptedPerSecond: rate(results.intake),
      latencyP50Ms: summarize(results.intake.map((result) => result.latencyP50Ms)),
      latencyP99Ms: summarize(results.intake.map((result) => result.latencyP99Ms)),
      non2xx: results.intake.reduce((sum, result) => sum + result.non2xx, 0),
      errors: results.intake.reduce((sum, result) => sum + result.errors, 0),
    },
    expressBaseline: { perSecond: rate(results.expressBaseline), latencyP99Ms: summarize(results.expressBaseline.map((result) => result.latencyP99Ms)) },
    httpHelloWorld: { perSecond: rate(results.httpHelloWorld) },
    ratioIntakeToBaseline: summarize(ratios.map((ratio) => Math.round(ratio * 1000) / 1000)),
    target: 0.25,
    targetPerSecond: 1000,
  };
}
