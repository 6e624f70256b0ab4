/**
 * Baselines for the HTTP load tests: the smallest possible node:http and uWebSockets.js servers answering a
 * fixed body. Run as `node --import tsx loadtest/support/bare-servers.ts node|uws PORT BODYFILE`.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import uWS from 'uWebSockets.js';

const [kind, portArg, bodyFile] = process.argv.slice(2);
const port = Number(portArg);
const body = readFileSync(bodyFile);

if (kind === 'node') {
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': body.length });
    res.end(body);
  }).listen(port, '127.0.0.1', () => process.send?.('ready'));
} else {
  uWS.App().any('/*', (res) => {
    res.cork(() => { res.writeStatus('200 OK').writeHeader('content-type', 'application/json; charset=UTF-8').end(body); });
  }).listen('127.0.0.1', port, (ok) => { if (ok) process.send?.('ready'); });
}
