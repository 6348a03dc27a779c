import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { addressesOf, clientTlsOf, describeInfrastructure, type ClientTls, type Infrastructure } from '@bedrequest/config';

/** PostgreSQL's SSLRequest: length 8, code 80877103 (the protocol's "Message Formats"). */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

/**
 * What is wrong with the TLS of `piece`, as the one line a starting service prints, or undefined
 * when its clients speak plain to it or it presented a certificate they trust for its address:
 * "PostgreSQL at 10.0.0.5:5432: certificate not trusted (unable to verify the first certificate),
 * checked against TLS_CA_FILE /etc/bedrequest/tls/ca.crt". A handshake with the first address of
 * `piece`, verified as its clients verify it (@bedrequest/config, clientTlsOf), right after the
 * address took a TCP connection: a wrong CA or certificate is a setting to fix, not something to wait for.
 */
export async function tlsProblemOf(piece: Infrastructure, timeoutMs: number): Promise<string | undefined> {
  const tls = clientTlsOf(piece);
  if (!tls) return undefined;
  const [address] = addressesOf(piece);
  if (!address) return undefined;
  const problem = await handshake(piece, address, tls, timeoutMs);
  return problem ? `${describeInfrastructure(piece)}: ${problem}, checked against ${tls.checkedAgainst}` : undefined;
}

/** The handshake's problem in words, or undefined once the server's certificate was verified. */
async function handshake(piece: Infrastructure, address: { host: string; port: number }, tls: ClientTls, timeoutMs: number): Promise<string | undefined> {
  const options: ConnectionOptions = {
    host: address.host,
    port: address.port,
    // SNI names a host, never an address (RFC 6066); the certificate is checked against `host` either way.
    ...(isIP(address.host) ? {} : { servername: address.host }),
    ...(tls.ca ? { ca: tls.ca } : {}),
  };
  let socket: Socket | 'refused' | undefined;
  try {
    socket = piece.name === 'PostgreSQL' ? await postgresSslRequest(address, timeoutMs) : undefined;
    if (socket === 'refused') return 'TLS refused (the server offers none)';
    const plain = socket;
    await new Promise<void>((resolve, reject) => {
      const secure = tlsConnect(plain ? { ...options, socket: plain } : options, () => {
        secure.destroy();
        resolve();
      });
      secure.setTimeout(timeoutMs, () => secure.destroy(new Error(`no TLS handshake within ${timeoutMs / 1000} s`)));
      secure.once('error', reject);
    });
    return undefined;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `certificate not for this address (${message})`;
    if (code && /CERT|SELF_SIGNED|ISSUER|SIGNATURE/.test(code)) return `certificate not trusted (${message})`;
    return `TLS handshake failed (${message})`;
  } finally {
    if (socket && socket !== 'refused') socket.destroy();
  }
}

/** A connection to PostgreSQL that asked for TLS: the socket once the server said yes, 'refused' when it said no. */
function postgresSslRequest(address: { host: string; port: number }, timeoutMs: number): Promise<Socket | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(address, () => socket.write(SSL_REQUEST));
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer to the SSLRequest within ${timeoutMs / 1000} s`)));
    socket.once('error', reject);
    socket.once('data', (answer) => {
      socket.setTimeout(0);
      socket.removeListener('error', reject);
      if (answer[0] === 0x53 /* S */) {
        resolve(socket);
      } else {
        socket.destroy();
        resolve('refused');
      }
    });
  });
}
