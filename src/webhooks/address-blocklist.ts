import { BlockList, isIP } from 'node:net';

// Addresses a webhook may never reach when WEBHOOK_ALLOW_INSECURE is off: loopback, private,
// link-local (cloud metadata), carrier-grade NAT, documentation, multicast and reserved ranges.
// Two lists: Node maps IPv4 onto ::ffff:0:0/96 when both families share one list.
const blocked4 = new BlockList();
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  blocked4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32],
  // IPv4-mapped / NAT64 / 6to4 forms can smuggle a private IPv4 address; refuse them outright.
  ['::ffff:0:0', 96], ['64:ff9b::', 96], ['2002::', 16], ['::', 96],
] as const) {
  blocked6.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address a webhook may call. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !blocked4.check(address, 'ipv4') : !blocked6.check(address, 'ipv6');
}
