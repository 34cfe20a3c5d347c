/**
 * kube's ValidateNonSpecialIP (pkg/apis/core/validation), which EndpointSlice and Endpoints
 * addresses must pass: no unspecified, loopback, link-local unicast or link-local multicast
 * address, since no pod could be sent to one.
 */
import { BlockList, isIP } from 'node:net';

const SPECIAL = new BlockList();
SPECIAL.addAddress('0.0.0.0', 'ipv4');
SPECIAL.addSubnet('127.0.0.0', 8, 'ipv4');
SPECIAL.addSubnet('169.254.0.0', 16, 'ipv4');
SPECIAL.addSubnet('224.0.0.0', 24, 'ipv4');
SPECIAL.addAddress('::', 'ipv6');
SPECIAL.addAddress('::1', 'ipv6');
SPECIAL.addSubnet('fe80::', 10, 'ipv6');
SPECIAL.addSubnet('ff02::', 16, 'ipv6');

/** True for an IP address an endpoint may hold; false for a special one or for what is no IP. */
export function isEndpointIp(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !SPECIAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
