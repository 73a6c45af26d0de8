/*\
Which addresses web-fetch may reach without the user's allow-list: public unicast only.
Loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10,
cloud metadata), carrier-grade NAT (100.64/10), unspecified (0.0.0.0, ::), multicast,
broadcast, reserved and the IPv6 ranges that embed an IPv4 address (IPv4-mapped, 6to4,
Teredo, NAT64) are refused. ipaddr.js names the range.
\*/
import ipaddr from 'ipaddr.js';

const NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  unspecified: 'an unspecified address',
};

/** Why an address may not be reached, or undefined when it is public unicast. Unparsable: refused. */
export function addressRefusal(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''));
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return NAMES[range] ?? `a reserved address (${range})`;
}

/** Whether a host name is an IP literal (IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[(.*)\]$/, '$1')) && !/^\d+$/.test(host);
}
