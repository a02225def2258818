// prom-client's Registry, Counter and Gauge, required from their own files. The package's index also
// loads its default process metrics, which pull in @opentelemetry/api (about 90 files in all), the
// Pushgateway and the cluster aggregator: a third of the modules an agent launch loaded, and none of
// them used here. The files are the ones the index re-exports (prom-client has no "exports" map), so
// a class here is the same class `import from 'prom-client'` gives (tests may mix the two).
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = require('prom-client/lib/registry');
export const Counter: typeof PromClient.Counter = require('prom-client/lib/counter');
export const Gauge: typeof PromClient.Gauge = require('prom-client/lib/gauge');
export type Registry = PromClient.Registry;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
