// Public names of the worker shell (src/worker). See docs/worker.md.
export * from "./clock.js";
export * from "./errors.js";
export * from "./types.js";
export { Worker, type WorkerStatus, type CloseOptions, type MetricsServer, type ServeMetricsOptions, type ThreadTimeOptions } from "./worker.js";
export {
  EXECUTING_OUTCOMES,
  IDLE_CAUSES,
  RECOMPUTE_ANNOTATIONS,
  THREAD_TIME_CONTEXT,
  idleCause,
  isRecompute,
  type ExecutingOutcome,
  type IdleCause,
  type ThreadTime,
} from "./thread-ledger.js";
export { MetricsStore, type MetricIncrement, type MetricsStoreOptions } from "./metrics-store.js";
export {
  escapeLabelValue,
  fineMetricFamilies,
  formatFamilies,
  formatFineMetrics,
  sanitizeMetricName,
  workerGaugeFamilies,
  type PrometheusFamily,
  type PrometheusSample,
  type PrometheusType,
  type WorkerGauges,
} from "./prometheus.js";
export {
  RealExecutor,
  isTaskRef,
  taskRef,
  typeName,
  type RealRunSpec,
  type TaskCall,
  type TaskContext,
  type TaskFunction,
  type TaskRef,
} from "./real-executor.js";
export {
  InProcessTransport,
  LatencyBandwidthNetwork,
  type InProcessTransportOptions,
  type LatencyBandwidthNetworkOptions,
} from "./in-process-transport.js";
export { AttributedStore, LazyFileStore } from "./data-store.js";
export { apportion, prefixWeights, type PrefixWeights } from "./prefix-split.js";
