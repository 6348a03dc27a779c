// Preloaded (`node --require`) into every service process the fault suite starts: the last line
// of defence that no test traffic leaves this machine, whatever a service under test gets wrong.
//
// It wraps the TCP handle's connect, the one place every outgoing TCP connection of a Node process
// passes with its final, resolved address (after any DNS lookup or SSRF guard). Loopback
// addresses connect as usual. An address named in FAULTS_FIREWALL_MAP (JSON: address → loopback
// port) is connected to 127.0.0.1 on that port instead: the SSRF test lets a public-looking
// address stand for a local test server this way. Any other address is refused before a socket
// exists (the connect fails with EHOSTUNREACH), and recorded in FAULTS_FIREWALL_LOG (JSON lines),
// so a test can assert that nothing even tried.
'use strict';

const { appendFileSync } = require('node:fs');
const { constants } = require('node:os');

const { TCP } = process.binding('tcp_wrap');
const logFile = process.env.FAULTS_FIREWALL_LOG;
const redirects = JSON.parse(process.env.FAULTS_FIREWALL_MAP || '{}');

function isLoopback(address) {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

function record(entry) {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, at: Date.now(), ...entry })}\n`);
}

const connect4 = TCP.prototype.connect;
const connect6 = TCP.prototype.connect6;

function guarded(original) {
  return function connect(request, address, port, ...rest) {
    if (isLoopback(address)) return original.call(this, request, address, port, ...rest);
    const localPort = redirects[address];
    if (localPort !== undefined) {
      record({ action: 'redirected', address, port, to: localPort });
      return connect4.call(this, request, '127.0.0.1', localPort, ...rest);
    }
    record({ action: 'blocked', address, port });
    return -constants.errno.EHOSTUNREACH;
  };
}

TCP.prototype.connect = guarded(connect4);
TCP.prototype.connect6 = guarded(connect6);
