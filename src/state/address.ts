// Host part of a worker address, as dask's `get_address_host`:
// "tcp://10.0.0.1:8000" → "10.0.0.1", "tcp://[::1]:8000" → "::1".
// The bounds are found in place, so that comparing a peer's host (asked per peer, per
// stimulus) builds neither a substring nor a tuple.

let hostStart = 0;
let hostEnd = 0;

/** Sets [hostStart, hostEnd) to the host inside `address`. */
function findHost(address: string): void {
  const scheme = address.indexOf("://");
  const start = scheme >= 0 ? scheme + 3 : 0;
  hostStart = start;
  if (address.startsWith("[", start)) {
    const close = address.indexOf("]", start);
    if (close > start) {
      hostStart = start + 1;
      hostEnd = close;
    } else {
      hostEnd = address.length;
    }
    return;
  }
  const colon = address.lastIndexOf(":");
  hostEnd = colon >= start && address.indexOf(":", start) === colon ? colon : address.length;
}

export function addressHost(address: string): string {
  findHost(address);
  return address.slice(hostStart, hostEnd);
}

/** `addressHost(address) === host`, without building the substring. */
export function addressHasHost(address: string, host: string): boolean {
  findHost(address);
  return hostEnd - hostStart === host.length && address.startsWith(host, hostStart);
}
