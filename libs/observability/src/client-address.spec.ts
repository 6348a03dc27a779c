import { addressKeyOf } from './client-address';

describe('addressKeyOf: what the limits by address count an address as', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:77:1::1', '2001:db8:77:1::/64'],
    ['2001:0DB8:0077:0001:ffff:ffff:ffff:ffff', '2001:db8:77:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.7', '64:ff9b:0:0::/64'],
    ['2001:db8:77:1:2:3:192.0.2.7', '2001:db8:77:1::/64'],
    ['unknown', 'unknown'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKeyOf(address)).toBe(key);
  });
});
