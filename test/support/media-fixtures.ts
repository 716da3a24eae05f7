import { deflateSync } from 'node:zlib';

/** Tiny real files whose type `file-type` recognises from the bytes. */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function png(padTo = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  const raw = Buffer.from([0, 0]);
  const parts = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
  ];
  if (padTo > 0) parts.push(chunk('tEXt', Buffer.alloc(padTo, 0x61)));
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

export function jpeg(size = 2048): Buffer {
  const b = Buffer.alloc(size, 0);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]).copy(b);
  b[size - 2] = 0xff;
  b[size - 1] = 0xd9;
  return b;
}

export function pdf(): Buffer {
  return Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
}

export function mp4(size = 4096): Buffer {
  const b = Buffer.alloc(size, 0);
  b.writeUInt32BE(24, 0);
  b.write('ftypisom', 4, 'ascii');
  b.writeUInt32BE(0x200, 12);
  b.write('isomiso2', 16, 'ascii');
  return b;
}
