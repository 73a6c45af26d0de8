// web-fetch's address rules (DESIGN 8): only public unicast addresses are reachable without
// the user's allow-list; the allow-list tiddler's entries are `host` or `host:port`.
import { addressRefusal, isIpLiteral } from '../../../src/agent/runner/host/web-address';
import { browserHostRefusal } from '../../../src/agent/runner/host/web-fetch-browser';
import { isAllowListed, parseAllowHosts } from '../../../src/agent/tools/web-fetcher';

describe('addressRefusal', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade'],
    ['100.127.255.254', 'carrier-grade'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['2002:7f00:1::1', '6to4'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['not-an-ip', 'not an IP address'],
  ])('%s is refused (%s)', (address, why) => {
    expect(addressRefusal(address)).toContain(why);
  });

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });

  test('IP literals are told from names', () => {
    expect(isIpLiteral('127.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('example.com')).toBe(false);
  });
});

describe('the browser checks host names only', () => {
  test.each([
    'http://localhost:8080/',
    'http://app.localhost/',
    'http://127.0.0.1/',
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://0x7f.1/',
    'http://2130706433/',
  ])('%s is refused', (url) => {
    expect(browserHostRefusal(new URL(url))).toBeDefined();
  });
  test('a public name passes (its address cannot be seen from a page)', () => {
    expect(browserHostRefusal(new URL('https://example.com/'))).toBeUndefined();
  });
});

describe('the allow-list', () => {
  test('entries: host, host:port, [IPv6]:port, bare IPv6, URLs and junk', () => {
    expect(parseAllowHosts('127.0.0.1:8123  Intranet.Example\n[::1]:8080 0:0:0:0:0:0:0:1 https://wiki.local:8443/path, example.org. bad:99999 a:b:c:')).toEqual(
      [
        { host: '127.0.0.1', port: 8123 },
        { host: 'intranet.example' },
        { host: '::1', port: 8080 },
        { host: '::1' },
        { host: 'wiki.local', port: 8443 },
        { host: 'example.org' },
      ],
    );
    expect(parseAllowHosts(undefined)).toEqual([]);
    expect(parseAllowHosts('  ')).toEqual([]);
  });

  test('a host:port entry allows that port only; a host entry any port; default ports count', () => {
    const allow = parseAllowHosts('127.0.0.1:8123 intranet.example [::1]:80 wiki.local:443');
    expect(isAllowListed(new URL('http://127.0.0.1:8123/x'), allow)).toBe(true);
    expect(isAllowListed(new URL('http://127.0.0.1:8124/x'), allow)).toBe(false);
    expect(isAllowListed(new URL('http://127.0.0.1/x'), allow)).toBe(false);
    expect(isAllowListed(new URL('https://INTRANET.example:9/'), allow)).toBe(true);
    expect(isAllowListed(new URL('http://sub.intranet.example/'), allow)).toBe(false);
    expect(isAllowListed(new URL('http://[::1]/'), allow)).toBe(true);
    expect(isAllowListed(new URL('https://wiki.local/'), allow)).toBe(true);
    expect(isAllowListed(new URL('http://wiki.local/'), allow)).toBe(false);
  });
});
