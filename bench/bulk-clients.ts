// The benchmark's HTTP clients (bulk.bench.ts): each runs in a worker thread with its own event loop,
// like a real client, so the app's thread only does the app's work.
import { Worker } from 'node:worker_threads';

export function element(i: number): string {
  // (stringified into the client worker: plain JavaScript only)
  const n = String(1_000_001 + (i % 8_999_997)).slice(0, 7);
  return `{"to":"+96650${n}","channel":"local_sms","messageType":"free_text","content":{"text":"Hello customer ${i}, your code is ${i % 10000}"}}`;
}

// The client runs in a worker thread (own event loop, like a real client), so the app's thread only
// does the app's work; the worker shares the process, so peak RSS includes it (it is small: streamed).
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, key, rows, mps, idem, path } = workerData;
const element = ${element.toString()};
// Started ahead and told when to go, so the clock measures the request, not this thread's start-up.
parentPort.once('message', () => {
const t0 = performance.now();
const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'X-API-Key': key, 'Idempotency-Key': idem, 'Content-Type': 'application/json' } }, (res) => {
  let data = '';
  res.on('data', (c) => (data += c));
  res.on('end', () => parentPort.postMessage({ status: res.statusCode, body: JSON.parse(data), secs: (performance.now() - t0) / 1000 }));
});
req.on('error', (e) => parentPort.postMessage({ status: 0, body: { error: String(e) }, secs: 0 }));
let i = 0;
const write = () => {
  if (i === 0) req.write('{"name":"bench","messagesPerSecond":' + mps + ',"messages":[');
  while (i < rows) {
    const parts = [];
    const end = Math.min(rows, i + 500);
    for (; i < end; i++) parts.push(element(i));
    const ok = req.write((i - parts.length > 0 ? ',' : '') + parts.join(','));
    if (!ok) return void req.once('drain', write);
  }
  req.end(']}');
};
write();
});
parentPort.postMessage('ready');
`;

// Downloads the CSV report in a worker thread, counting bytes and lines as they arrive (nothing kept).
const CSV_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, key, jobId } = workerData;
parentPort.once('message', () => {
const t0 = performance.now();
http.get({ host: '127.0.0.1', port, path: '/api/v2/messages/bulk/' + jobId + '/rows.csv', headers: { 'X-API-Key': key } }, (res) => {
  let bytes = 0;
  let lines = 0;
  res.on('data', (c) => {
    bytes += c.length;
    for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
  });
  res.on('end', () => parentPort.postMessage({ status: res.statusCode, type: res.headers['content-type'], complete: res.complete, bytes, lines, secs: (performance.now() - t0) / 1000 }));
}).on('error', (e) => parentPort.postMessage({ status: 0, error: String(e) }));
});
parentPort.postMessage('ready');
`;

export interface CsvDownload {
  status: number;
  type?: string;
  complete?: boolean;
  bytes: number;
  lines: number;
  secs: number;
  error?: string;
}

export function downloadCsv(port: number, key: string, jobId: string): Promise<CsvDownload> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CSV_CLIENT, { eval: true, execArgv: [], workerData: { port, key, jobId } });
    w.on('message', (m: 'ready' | CsvDownload) => {
      if (m === 'ready') return w.postMessage('go');
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

/**
 * Streams a bulk body of `rows` generated elements from a worker thread (plain JavaScript: no ts-node
 * hooks); resolves with the response and the seconds from the first byte sent to the response.
 */
export function postBulk(
  port: number,
  key: string,
  rows: number,
  mps = 10,
  idem = `bench-${Date.now()}-${Math.random()}`,
  path = '/api/v2/messages/bulk',
): Promise<{ status: number; body: Record<string, unknown>; secs: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CLIENT, { eval: true, execArgv: [], workerData: { port, key, rows, mps, idem, path } });
    w.on('message', (m: 'ready' | { status: number; body: Record<string, unknown>; secs: number }) => {
      if (m === 'ready') return w.postMessage('go');
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}
