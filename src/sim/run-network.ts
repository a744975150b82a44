// A run's network and its hosts' cores, wired to each other: each worker's event loop is a
// thread of its host (busy while its bytes move), and under max-min / shared-host the loops'
// byte capacity follows their thread's share of the cores, recomputed when a flow starts or
// ends and when the host's runnable threads change (a CPU part starts or ends).
import type { WorkerClock } from "../worker/clock.js";
import type { ResolvedCluster } from "./cluster.js";
import { ClusterCpu } from "./host-cpu.js";
import { createNetwork, withTransferSpread, type EndpointCapacity, type SimNetwork } from "./network/index.js";

export interface RunNetwork {
  readonly network: SimNetwork;
  /** The hosts' cores, when the cluster has a CPU model. */
  readonly cpu: ClusterCpu | null;
}

/** `addressIndex`: each worker's index by its address; `seed`: the run's (the transfers' spread draws from it). */
export function runNetwork(cluster: ResolvedCluster, clock: WorkerClock, addressIndex: ReadonlyMap<string, number>, seed: number): RunNetwork {
  const addresses = cluster.workers.map((shape) => shape.address);
  const endpoints = new Map<string, EndpointCapacity>(
    cluster.workers.map((shape) => [shape.address, { send: shape.sendBandwidth, receive: shape.receiveBandwidth, host: shape.host }]),
  );
  // A worker's loop thread carries its SerialLoop's work and the bytes it moves (max-min, shared-host).
  const cpu = cluster.host === null ? null : new ClusterCpu(cluster.host, cluster.workers.map((shape) => shape.host), (w) => network.moving?.(addresses[w]!) ?? false);
  const model = createNetwork(cluster.network, clock, {
    latency: cluster.latency,
    bandwidth: cluster.bandwidth,
    endpoints,
    hostBandwidth: cluster.hostBandwidth,
    loopBandwidth: cluster.loopBandwidth,
    deserializeBandwidth: cluster.deserializeBandwidth,
    ...(cpu === null ? {} : { loopShare: (address: string) => cpu.loopThreads[addressIndex.get(address)!]!.shareAt(clock.now()) }),
  });
  // Every transfer's wire varies (network/spread.ts); without a spread the model itself, exact.
  const network: SimNetwork = cluster.transferSpread === null ? model : withTransferSpread(model, cluster.transferSpread, seed);
  if (cpu !== null && network.loopSharesChanged !== undefined) cpu.watch(clock, () => network.loopSharesChanged!());
  return { network, cpu };
}
