#!/usr/bin/env node
// The conformance suite's echo contract (conformance/cases/README.md) served
// by Node's http module (llhttp), no npm dependencies: a peer that
// conformance/run-peers.sh runs the live suite against.
//
//   node conformance/peers/node-echo.js --addr 127.0.0.1:0   # prints "listening on ADDR"
//
// Written as a user of node:http writes a server: a 'request' handler that
// collects the body's chunks and, at 'end', answers 200 with the body and
// the fields x-echo-method, x-echo-target (req.url, the target as received)
// and x-echo-version. Exceptions:
//
// - CONNECT: Node hands it to the 'connect' event with the raw socket (with
//   no listener it destroys the socket); the listener writes a 501 (not a
//   proxy) and ends the connection, which is no longer Node's to go on
//   with.
// - an https absolute-form target: 421 (RFC 9110 §7.4).
// - a body over 1 MiB: 413 (at once when Content-Length says so).
// - upgrades: a listener for 'upgrade' would take every request carrying
//   Connection: upgrade off the HTTP parser, including the ones the
//   contract declines; so there is none, and Node answers every upgrade
//   request as any request (declined), websocket included: what the
//   contract asks of a server that does not switch.
//
// Node itself decides which Expect values ask for 100-continue (any that
// mentions it); for those, a 'checkContinue' listener sends 100 Continue, or
// 417 with a close when another member is listed too. Node answers 417 to
// other expectations itself (no 'checkExpectation' listener), and answers what llhttp refuses (the
// default 'clientError' handling: 400, 413, 431, then close). The head
// limit of the contract (64 KiB) is set as maxHeaderSize.
'use strict';

const http = require('node:http');

const MAX_BODY = 1 << 20;

function addrArg() {
  const args = process.argv.slice(2);
  let addr = '127.0.0.1:8080';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--addr' && i + 1 < args.length) {
      addr = args[++i];
    } else {
      console.error(`unknown argument ${JSON.stringify(args[i])} (want --addr ADDR)`);
      process.exit(2);
    }
  }
  const colon = addr.lastIndexOf(':');
  return { host: addr.slice(0, colon), port: Number(addr.slice(colon + 1)) };
}

function echoFields(req) {
  return {
    'x-echo-method': req.method,
    'x-echo-target': req.url,
    'x-echo-version': `HTTP/${req.httpVersion}`,
    server: 'node-echo',
  };
}

function answer(res, status, fields, body) {
  try {
    res.writeHead(status, { ...fields, 'content-length': body.length });
  } catch {
    // A target no field value may hold: answer without echoing it.
    res.writeHead(500, { 'x-echo-error': 'target', 'content-length': 0 });
    res.end();
    return;
  }
  res.end(body);
}

function echo(req, res) {
  const fields = echoFields(req);
  const tooLarge = () => answer(res, 413, { ...fields, connection: 'close' }, Buffer.alloc(0));
  if (Number(req.headers['content-length']) > MAX_BODY) {
    tooLarge();
    return;
  }
  const chunks = [];
  let length = 0;
  let refused = false;
  req.on('data', (chunk) => {
    length += chunk.length;
    if (length > MAX_BODY && !refused) {
      refused = true;
      tooLarge();
    }
    if (!refused) chunks.push(chunk);
  });
  // A body llhttp cannot read ends the connection through 'clientError';
  // the request only sees the error.
  req.on('error', () => {});
  req.on('end', () => {
    if (refused) return;
    const body = Buffer.concat(chunks);
    if (/^https:\/\//i.test(req.url)) {
      answer(res, 421, fields, Buffer.alloc(0));
    } else {
      answer(res, 200, fields, body);
    }
  });
}

const server = http.createServer({ maxHeaderSize: 64 * 1024 }, echo);

// Node takes any Expect that mentions 100-continue for it: the contract
// wants 417 (and a close) when another member is listed too; else the
// 100 Continue, then the request as any other.
server.on('checkContinue', (req, res) => {
  const members = (req.headers.expect || '').split(',').map((e) => e.trim().toLowerCase());
  if (members.some((e) => e !== '' && e !== '100-continue')) {
    answer(res, 417, { ...echoFields(req), connection: 'close' }, Buffer.alloc(0));
    return;
  }
  res.writeContinue();
  echo(req, res);
});

server.on('connect', (req, socket) => {
  const f = echoFields(req);
  const head = [
    'HTTP/1.1 501 Not Implemented',
    ...Object.entries(f).map(([k, v]) => `${k}: ${v}`),
    'content-length: 0',
    'connection: close',
    '',
    '',
  ].join('\r\n');
  socket.on('error', () => {});
  socket.end(head);
});

const { host, port } = addrArg();
server.listen(port, host, () => {
  const a = server.address();
  console.log(`listening on ${a.address}:${a.port}`);
});
