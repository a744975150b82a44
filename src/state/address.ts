// Host part of a worker address, as dask's `get_address_host`:
// "tcp://10.0.0.1:8000" → "10.0.0.1", "tcp://[::1]:8000" → "::1".
export function addressHost(address: string): string {
  const scheme = address.indexOf("://");
  let location = scheme >= 0 ? address.slice(scheme + 3) : address;
  if (location.startsWith("[")) {
    const close = location.indexOf("]");
    return close > 0 ? location.slice(1, close) : location;
  }
  const colon = location.lastIndexOf(":");
  if (colon >= 0 && location.indexOf(":") === colon) location = location.slice(0, colon);
  return location;
}
