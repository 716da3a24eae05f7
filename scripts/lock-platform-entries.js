#!/usr/bin/env node
// Adds lockfile entries for other platforms' optional native binaries (@swc/core-*, @unrs/resolver-binding-*,
// @rollup/rollup-* of the console's Vite build).
// Why: npm 11's `npm ci` refuses a lockfile that lacks them, but npm cannot write them when the
// registry it reaches does not serve those platforms (the mirror here 404s them; npm/cli#4828,
// #8320). Entries carry os/cpu/libc, so `npm ci` validates them and skips them on this platform
// without fetching. Run after `npm install` changes the lockfile: `node scripts/lock-platform-entries.js`.
const fs = require('fs');
const path = require('path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;

function platformOf(name) {
  const tail = name
    .split('/')
    .pop()
    .replace(/^core-|^resolver-binding-|^rollup-/, '');
  const [os, cpu, abi] = tail.split('-');
  const entry = { os: [os], cpu: [cpu === 'arm' ? 'arm' : cpu] };
  if (os === 'linux') entry.libc = [abi && abi.startsWith('musl') ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const [key, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies || {})) {
    if (!/^@swc\/core-|^@unrs\/resolver-binding-|^@rollup\/rollup-/.test(dep)) continue;
    const at = `node_modules/${dep}`;
    if (pkgs[at]) continue;
    const { os, cpu, libc } = platformOf(dep);
    pkgs[at] = { version, cpu, ...(libc ? { libc } : {}), dev: !!(meta.dev || meta.devOptional), optional: true, os };
    added++;
  }
}
const sorted = { '': pkgs[''] };
for (const key of Object.keys(pkgs)
  .filter((k) => k !== '')
  .sort())
  sorted[key] = pkgs[key];
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock-platform-entries: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
