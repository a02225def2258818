// Requirements of spec document 002: metrics and debug endpoints
// (health SLIs, CRI-sourced stats, node metrics, native histograms, /statusz and /flagz).
// One entry per checkable rule, in spec order. Ground-truth entries fill the spec's "not shown" gaps.
import type { Requirement } from './types.js';

export const METRICS_DEBUG: readonly Requirement[] = [
  // ---------------------------------------------------------------- 1. What the service does
  {
    id: '002-1-https-port',
    doc: '002', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'Every component exposes its operational data (SLI metrics of health checks, pod and container statistics, node statistics, histograms, debug pages) over its own HTTPS port.',
  },

  // ---------------------------------------------------------------- 2.1 Health SLI metrics
  {
    id: '002-2.1-healthcheck-gauge',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'MUST', source: 'spec',
    text: '`orch_healthcheck` is a gauge with labels `name` (check name) and `type` (`healthz` or `readyz`) giving the current result of one health check (value 1 for a healthy check).',
  },
  {
    id: '002-2.1-healthcheck-failed-zero',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'SHOULD', source: 'ground-truth',
    text: '`orch_healthcheck` is 1 for a passing check and 0 for a failed one.',
  },
  {
    id: '002-2.1-healthchecks-total-counter',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'MUST', source: 'spec',
    text: '`orch_healthchecks_total` is a counter with labels `name`, `type` and `status` (`success` or `error`) giving the cumulative count of observed results per check.',
  },
  {
    id: '002-2.1-alpha-help-text',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'MUST', source: 'spec',
    text: '`orch_healthcheck` and `orch_healthchecks_total` are alpha-labeled in their help text.',
  },
  {
    id: '002-2.1-help-text',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'SHOULD', source: 'ground-truth',
    text: 'The help texts are `[ALPHA] This metric records the result of a single healthcheck.` (`orch_healthcheck`) and `[ALPHA] This metric records the results of all healthcheck.` (`orch_healthchecks_total`): upstream\'s texts, alpha-labelled as the spec says.',
  },
  {
    id: '002-2.1-dependency-checks',
    doc: '002', section: '2.1', sectionTitle: 'Health SLI metrics', level: 'MUST', source: 'spec',
    text: 'Components report health checks of what they depend on (e.g. the API server reports on its storage backend), from which availability per dependency can be computed; check names seen include `autoregister-completion`, `etcd`, `etcd-readiness`, `informer-sync`, `log`, `ping`.',
  },

  // ---------------------------------------------------------------- 2.2 Metrics provider indicator
  {
    id: '002-2.2-metrics-provider',
    doc: '002', section: '2.2', sectionTitle: 'Metrics provider indicator', level: 'MUST', source: 'spec',
    text: 'Metric `agent_metrics_provider` with label `provider` (`cri` or `cadvisor`) shows which source supplies pod and container statistics on a node.',
  },

  // ---------------------------------------------------------------- 2.3 Structured status payload
  {
    id: '002-2.3-statusz-kind',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has `kind` `Statusz`.',
  },
  {
    id: '002-2.3-statusz-api-version',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has `apiVersion` (string), for example `config.orch.io/v1beta1`.',
  },
  {
    id: '002-2.3-statusz-metadata',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has optional `metadata` whose `name` is the component name.',
  },
  {
    id: '002-2.3-statusz-start-time',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has `startTime` (time): when the process was initiated.',
  },
  {
    id: '002-2.3-statusz-uptime-seconds',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has `uptimeSeconds` (int64): seconds running continuously.',
  },
  {
    id: '002-2.3-statusz-go-version',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has optional `goVersion` (string, toolchain version; format not guaranteed).',
  },
  {
    id: '002-2.3-statusz-binary-version-required',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has required `binaryVersion` (string; format not guaranteed to be semantic versioning).',
  },
  {
    id: '002-2.3-statusz-emulation-version',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has optional `emulationVersion` (string, `<major>.<minor>` of the emulated API version).',
  },
  {
    id: '002-2.3-statusz-minimum-compatibility-version',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has optional `minimumCompatibilityVersion` (string, `<major>.<minor>` minimum compatible API version).',
  },
  {
    id: '002-2.3-statusz-paths',
    doc: '002', section: '2.3', sectionTitle: 'Structured status payload', level: 'MUST', source: 'spec',
    text: 'The structured /statusz payload has optional `paths` (array of string): relative URLs of other read-only debugging endpoints.',
  },

  // ---------------------------------------------------------------- 2.4 Structured flags payload
  {
    id: '002-2.4-flagz-kind-api-version',
    doc: '002', section: '2.4', sectionTitle: 'Structured flags payload', level: 'MUST', source: 'spec',
    text: 'The structured /flagz payload has `kind` `Flagz` and `apiVersion` `config.orch.io/v1beta1`.',
  },
  {
    id: '002-2.4-flagz-metadata',
    doc: '002', section: '2.4', sectionTitle: 'Structured flags payload', level: 'MUST', source: 'spec',
    text: 'The structured /flagz payload has optional `metadata` whose `name` is the component.',
  },
  {
    id: '002-2.4-flagz-flags',
    doc: '002', section: '2.4', sectionTitle: 'Structured flags payload', level: 'MUST', source: 'spec',
    text: 'The structured /flagz payload has optional `flags`: a map of flag name to value (string to string); confidential values may be redacted.',
  },

  // ---------------------------------------------------------------- 4 Endpoints
  {
    id: '002-4-get-https',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: 'All metrics and debug endpoints are served by the component that exposes them, on its HTTPS port, with GET.',
  },
  {
    id: '002-4-metrics-slis',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics/slis` serves the SLI metrics of section 2.1 in text exposition format.',
  },
  {
    id: '002-4-metrics-slis-enabled',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics/slis` is enabled by default in release 1.37; gate ComponentSLIs is on by default since 1.27, stable since 1.32 and no longer toggleable.',
  },
  {
    id: '002-4-metrics-slis-scraping',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'spec',
    text: '`/metrics/slis` is meant to be scraped at high frequency.',
  },
  {
    id: '002-4-metrics-text-classic',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics` negotiates by `Accept`: a text type (text/plain, OpenMetrics 1.0) returns classic histogram buckets only.',
  },
  {
    id: '002-4-metrics-protobuf-native',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics` with `Accept: application/vnd.google.protobuf` (proto `io.prometheus.client.MetricFamily`, encoding `delimited`) returns classic buckets and native histogram data.',
  },
  {
    id: '002-4-metrics-protobuf-content-type',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'The protobuf exposition has Content-Type `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited`; each MetricFamily is preceded by its uvarint length.',
  },
  {
    id: '002-4-metrics-prometheus-accept',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/metrics` honours the scraper\'s weighted Accept header, e.g. `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,...,text/plain;version=0.0.4;q=0.2,*/*;q=0.1`, choosing protobuf when it is preferred.',
  },
  {
    id: '002-4-metrics-proto-messages',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'metrics.proto (proto2, package io.prometheus.client): MetricFamily{name 1, help 2, type 3, metric 4, unit 5}; MetricType COUNTER 0, GAUGE 1, SUMMARY 2, UNTYPED 3, HISTOGRAM 4, GAUGE_HISTOGRAM 5; Metric{label 1, gauge 2, counter 3, summary 4, untyped 5, timestamp_ms 6, histogram 7}; LabelPair{name 1, value 2}; Gauge{value 1}; Counter{value 1, exemplar 2, created_timestamp 3}.',
  },
  {
    id: '002-4-metrics-proto-histogram',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'metrics.proto Histogram{sample_count 1, sample_sum 2, bucket 3, sample_count_float 4, schema 5 (sint32), zero_threshold 6, zero_count 7, zero_count_float 8, negative_span 9, negative_delta 10 (sint64), negative_count 11, positive_span 12, positive_delta 13 (sint64), positive_count 14, created_timestamp 15, exemplars 16}; Bucket{cumulative_count 1, upper_bound 2, exemplar 3, cumulative_count_float 4}; BucketSpan{offset 1 (sint32), length 2 (uint32)}.',
  },
  {
    id: '002-4-native-histogram-empty-span',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'An empty native histogram with zero_threshold 0 carries one span {offset 0, length 0}.',
  },
  {
    id: '002-4-native-histogram-buckets',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'Native bucket index: base = 2^(2^-schema), schema -4..8; bucket i covers (base^(i-1), base^i]; over the bucket limit the resolution is halved (schema-1, key -> ceil(key/2)) until it fits.',
  },
  {
    id: '002-4-metrics-cadvisor',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics/cadvisor` on the agent serves pod and container metrics; when the CRI stats gate is enabled they come from the runtime through the `ListPodSandboxMetrics` RPC, with the same path and metric names.',
  },
  {
    id: '002-4-metrics-cadvisor-node-embedded',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: 'Node and machine-level metrics on `/metrics/cadvisor` remain from the embedded collector.',
  },
  {
    id: '002-4-metrics-resource',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/metrics/resource` is the resource metrics endpoint queried by the resource metrics aggregator from version 0.6.x onward (instead of `/stats/summary`).',
  },
  {
    id: '002-4-metrics-resource-names',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/metrics/resource` exposes node_cpu_usage_seconds_total, node_memory_working_set_bytes, container_cpu_usage_seconds_total{container,pod,namespace}, container_memory_working_set_bytes, container_start_time_seconds, pod_cpu_usage_seconds_total{pod,namespace}, pod_memory_working_set_bytes and resource_scrape_error; samples carry timestamps.',
  },
  {
    id: '002-4-stats-summary',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/stats/summary` serves summary stats at node, volume, pod and container levels: CPU, memory, network and process stats for pods and containers, plus pressure stall information when enabled.',
  },
  {
    id: '002-4-stats-summary-proxy',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/stats/summary` is also reachable through the API server as `GET /api/v1/nodes/{node_name}/proxy/stats/summary` (`node_name` string path parameter).',
  },
  {
    id: '002-4-stats-summary-shape',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/stats/summary` returns `{node:{nodeName, startTime, cpu, memory, network, fs, runtime:{imageFs}, rlimit}, pods:[{podRef:{name,namespace,uid}, startTime, containers:[{name, startTime, cpu, memory, rootfs, logs}], cpu, memory, network, volume, "ephemeral-storage", process_stats:{process_count}}]}`; cpu is {time, usageNanoCores, usageCoreNanoSeconds}; memory is {time, availableBytes, usageBytes, workingSetBytes, rssBytes, pageFaults, majorPageFaults}.',
  },
  {
    id: '002-4-stats-summary-psi',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'With pressure stall information, `/stats/summary` adds `psi: {full: {total, avg10, avg60, avg300}, some: {...}}` to cpu, memory and io.',
  },
  {
    id: '002-4-statusz-text',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/statusz` without an `Accept` header returns plain text: a warning line that it is not machine parseable, then started time, uptime, toolchain version, binary version, emulation version and the paths list.',
  },
  {
    id: '002-4-statusz-json',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/statusz` with `Accept: application/json;v=v1beta1;g=config.orch.io;as=Statusz` returns the structured payload of section 2.3.',
  },
  {
    id: '002-4-statusz-gate',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/statusz` is controlled by gate `ComponentStatusz`.',
  },
  {
    id: '002-4-statusz-text-format',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/statusz` text is `\\n<component> statusz\\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\\n` then `Started`, `Up`, `Go version`, `Binary version`, `Emulation version`, `Paths` lines.',
  },
  {
    id: '002-4-flagz-text',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/flagz` returns the command-line flags the component was started with, in plain text by default: a warning line, then `name=value` lines.',
  },
  {
    id: '002-4-flagz-json',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/flagz` with `Accept: application/json;v=v1alpha1;g=config.orch.io;as=Flagz` returns the structured payload of section 2.4, whose body carries apiVersion `config.orch.io/v1beta1`.',
  },
  {
    id: '002-4-flagz-gate',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/flagz` is controlled by gate `ComponentFlagz`.',
  },
  {
    id: '002-4-flagz-flags-only',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/flagz` reports flags and defaults only; for components that also load a configuration file (agent, proxy), `/configz` gives the merged configuration where available.',
  },
  {
    id: '002-4-flagz-text-format',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/flagz` text is `\\n<component> flags\\n<warning>\\n\\n` then `name=value` lines, sorted.',
  },
  {
    id: '002-4-z-pages-text-not-acceptable',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'The text form of `/statusz` and `/flagz` returns 406 `media type not acceptable, must be: text/plain` unless Accept is empty or includes text/plain, text/* or */*.',
  },
  {
    id: '002-4-configz',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: '`/configz` serves the merged component configuration, where available.',
  },
  {
    id: '002-4-essential-read-only-paths',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: 'The essential read-only paths are `/healthz`, `/livez`, `/metrics`, `/readyz`, `/statusz` and `/version`.',
  },
  // Health endpoints: the spec lists them; their answers follow upstream (k8s.io/apiserver healthz).
  {
    id: '002-4-health-ok',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/healthz`, `/livez` and `/readyz` of a healthy component answer 200 with the plain text body `ok`.',
  },
  {
    id: '002-4-health-verbose',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'With `?verbose` a health endpoint lists each check as `[+]<name> ok`, then `<endpoint> check passed` (e.g. `readyz check passed`).',
  },
  {
    id: '002-4-health-exclude',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`?exclude=<name>` (repeatable) leaves that check out of a health endpoint\'s verdict, listed as `[+]<name> excluded: ok`; a name that matches no check adds `warn: some health checks cannot be excluded: no matches for "<name>"`.',
  },
  {
    id: '002-4-health-failure',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'A failing check makes its health endpoint answer 500 with the full listing, the check shown as `[-]<name> failed: reason withheld`, and `<endpoint> check failed`.',
  },
  {
    id: '002-4-health-individual',
    doc: '002', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`/<endpoint>/<check>` (e.g. `/readyz/ping`) runs that one check: 200 `ok` when it passes, 500 `internal server error: <reason>` when it fails.',
  },

  // ---------------------------------------------------------------- 4.1 Container-runtime-sourced statistics
  {
    id: '002-4.1-cri-stats',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'MUST', source: 'spec',
    text: 'With gate `PodAndContainerStatsFromCRI` enabled on the agent (beta) and a compatible runtime, the agent polls the runtime for pod and container statistics instead of the embedded collector.',
  },
  {
    id: '002-4.1-node-stats-embedded',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'MUST', source: 'spec',
    text: 'Node-level and image-filesystem stats still come from the embedded collector when CRI stats are on.',
  },
  {
    id: '002-4.1-runtime-requirement',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'SHOULD', source: 'spec',
    text: 'CRI stats need a runtime that supports the stats RPCs (minimum 2.2 for one implementation, 1.31.0 for another); the latter adds `namespace`, `pod` and `container` labels on `/metrics/cadvisor` only from 1.36.3.',
  },
  {
    id: '002-4.1-fallback-embedded',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'MUST', source: 'spec',
    text: 'If the runtime does not report the expected metrics, the agent falls back to the embedded collector even with the gate on.',
  },
  {
    id: '002-4.1-gate-off-restores',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'MUST', source: 'spec',
    text: 'Restarting the agent with `PodAndContainerStatsFromCRI` off restores embedded collection fully.',
  },
  {
    id: '002-4.1-embedded-deprecated',
    doc: '002', section: '4.1', sectionTitle: 'Container-runtime-sourced statistics', level: 'SHOULD', source: 'spec',
    text: 'From release 1.37, embedded-collector pod and container metric collection is deprecated; when the feature reaches GA, runtimes lacking the metrics lose pod and container metrics.',
  },

  // ---------------------------------------------------------------- 4.2 Pressure stall information
  {
    id: '002-4.2-psi-stable',
    doc: '002', section: '4.2', sectionTitle: 'Pressure stall information', level: 'MUST', source: 'spec',
    text: 'Pressure stall information is stable since 1.36; gate `KubeletPSI` is locked to true and ignored if set.',
  },
  {
    id: '002-4.2-psi-levels',
    doc: '002', section: '4.2', sectionTitle: 'Pressure stall information', level: 'MUST', source: 'spec',
    text: 'CPU, memory and I/O pressure is collected at node, pod and container level and shown in the summary stats and in metrics.',
  },

  // ---------------------------------------------------------------- 7 Errors
  {
    id: '002-7-statusz-json-without-params-406',
    doc: '002', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: '`Accept: application/json` on `/statusz` without all three parameters `g`, `v` and `as` gets 406 Not Acceptable.',
  },
  {
    id: '002-7-flagz-json-without-params-406',
    doc: '002', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: '`Accept: application/json` on `/flagz` without all three parameters `g`, `v` and `as` gets 406 Not Acceptable.',
  },
  {
    id: '002-7-native-histogram-old-scraper',
    doc: '002', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'spec',
    text: 'A native histogram request to a scraper or component too old to support it yields unknown metric format errors on the scraper side.',
  },

  // ---------------------------------------------------------------- 8 Limits
  {
    id: '002-8-native-histogram-buckets',
    doc: '002', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'A native histogram has at most 160 buckets.',
  },
  {
    id: '002-8-slis-scrape-frequency',
    doc: '002', section: '8', sectionTitle: 'Limits', level: 'SHOULD', source: 'spec',
    text: '`/metrics/slis` is recommended for high-frequency scraping; no numeric value is given.',
  },

  // ---------------------------------------------------------------- 9 Versioning and native histograms
  {
    id: '002-9-native-histograms-exponential',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'Native histograms use exponential bucket boundaries.',
  },
  {
    id: '002-9-native-histograms-gate',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'Gate `NativeHistograms` applies to the API server, controller manager, scheduler, agent and proxy, independently per component.',
  },
  {
    id: '002-9-native-histograms-default',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: '`NativeHistograms` must be enabled manually in release 1.36 (`--feature-gates=NativeHistograms=true`); in 1.37 it is beta and on by default.',
  },
  {
    id: '002-9-dual-exposition',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'When `NativeHistograms` is on, components expose both classic and native formats (dual exposition); the `Accept` header chooses the format as in section 4.',
  },
  {
    id: '002-9-feature-enabled-metric',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'Metric `orch_feature_enabled` with label `name` equal to `NativeHistograms` reports the gate state (value 1 means enabled).',
  },
  {
    id: '002-9-feature-enabled-stage',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'SHOULD', source: 'ground-truth',
    text: '`orch_feature_enabled` also carries label `stage`, the gate\'s maturity as upstream writes it (`ALPHA`, `BETA`, `DEPRECATED`, empty for GA): the gates spec 002 calls beta in 1.37 (`NativeHistograms`, `ComponentStatusz`, `ComponentFlagz`) show `stage="BETA"`. (Upstream component-base behaviour, not yet in the ground-truth note.)',
  },
  {
    id: '002-9-native-histograms-disable',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'Restarting a component with `NativeHistograms=false` disables native histogram exposition; historical native data stays queryable.',
  },
  {
    id: '002-9-structured-z-pages',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'SHOULD', source: 'spec',
    text: 'Structured `/statusz` and `/flagz` are supported since release 1.35 and are beta as of 1.36; they may change.',
  },
  {
    id: '002-9-z-pages-beta',
    doc: '002', section: '9', sectionTitle: 'Versioning and native histograms', level: 'MUST', source: 'spec',
    text: 'z-pages are beta in 1.37.',
  },
];
