// Host part of a worker address, as dask's `get_address_host`:
// "tcp://10.0.0.1:8000" → "10.0.0.1", "tcp://[::1]:8000" → "::1".

/** [start, end) of the host inside `address` (no substring is made). */
function hostBounds(address: string): [number, number] {
  const scheme = address.indexOf("://");
  const start = scheme >= 0 ? scheme + 3 : 0;
  if (address.startsWith("[", start)) {
    const close = address.indexOf("]", start);
    return close > start ? [start + 1, close] : [start, address.length];
  }
  const colon = address.lastIndexOf(":");
  const single = colon >= start && address.indexOf(":", start) === colon;
  return [start, single ? colon : address.length];
}

export function addressHost(address: string): string {
  const [start, end] = hostBounds(address);
  return address.slice(start, end);
}

/** `addressHost(address) === host`, without building the substring (asked per peer, per stimulus). */
export function addressHasHost(address: string, host: string): boolean {
  const [start, end] = hostBounds(address);
  return end - start === host.length && address.startsWith(host, start);
}
