/**
 * Short labels for worker addresses where space is tight (matrix rows and columns): the scheme
 * (`tcp://`) and a port shared by every address are dropped when what remains still tells
 * every worker apart; otherwise the addresses are kept whole. Tooltips always give the address.
 */
export function shortWorkerNames(addresses: readonly string[]): Map<string, string> {
  const withoutScheme = addresses.map((address) => address.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ""));
  const ports = new Set(withoutScheme.map((address) => /:\d+$/.exec(address)?.[0] ?? ""));
  const sharedPort = ports.size === 1 ? [...ports][0]! : "";
  const short = withoutScheme.map((address) => (sharedPort !== "" ? address.slice(0, -sharedPort.length) : address));
  const distinct = new Set(short).size === addresses.length && short.every((name) => name !== "");
  return new Map(addresses.map((address, index) => [address, distinct ? short[index]! : address]));
}
