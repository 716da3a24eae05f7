import { collectDefaultMetrics, Registry } from 'prom-client';

/** Injection token of the app's prom-client Registry (one per app instance, never prom-client's global one). */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

let processMetrics: Registry | null = null;

/**
 * The process defaults (CPU, memory, event-loop lag, GC, handles) are collected once per process:
 * each collection starts an event-loop monitor and a GC observer that are never stopped, so an app
 * per test must not start its own. Every app's registry registers these same metric objects.
 */
function processDefaults(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** A fresh registry for one app, with the process defaults in it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  const defaults = processDefaults();
  for (const { name } of defaults.getMetricsAsArray()) {
    const metric = defaults.getSingleMetric(name);
    if (metric) registry.registerMetric(metric);
  }
  return registry;
}
