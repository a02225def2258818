// The reference node agent (spec 001): composes the API client, Node registration and status, the
// Lease heartbeat, the pod watch feeding one worker per pod, and the PLEG. Without `api` it runs in
// standalone mode and makes no API call at all.
import { mkdir } from 'node:fs/promises';
import * as os from 'node:os';
import { ApiClient } from './api-client.js';
import { LeaseController } from './lease.js';
import { NodeStatusManager } from './node-status.js';
import { Pleg } from './pleg.js';
import { PodWorkers } from './pod-workers.js';
import { Runtime, runtimeMessage } from './runtime.js';
import { PACKAGE_VERSION } from '../package-version.js';

export interface AgentOptions {
  api?: { url: string; token?: string; caPem?: string };
  criEndpoint: string;
  imageEndpoint?: string;
  /** Default: hostnameOverride, else the lowercased host name (upstream's default). */
  nodeName?: string;
  hostnameOverride?: string;
  rootDir: string;
  /** Node status computed this often, ms (default 10 s). */
  nodeStatusUpdateFrequencyMs?: number;
  /** Node status written at least this often, ms (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  leaseDurationSeconds?: number;
  /** Lease renewal, ms (default a quarter of the duration). */
  leaseRenewIntervalMs?: number;
  /** PLEG relist period, ms (default 1 s). */
  relistPeriodMs?: number;
  /** Restart/pull back-off base and cap, ms (default 10 s and 5 min). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Where errors of background loops go (default: stderr). */
  log?(msg: string): void;
}

export interface RunningAgent {
  nodeName: string;
  close(): Promise<void>;
}

export function defaultNodeName(hostnameOverride?: string): string {
  return (hostnameOverride ?? os.hostname()).trim().toLowerCase();
}

export async function startAgent(o: AgentOptions): Promise<RunningAgent> {
  const log = o.log ?? ((m: string) => process.stderr.write(`agent: ${m}\n`));
  const nodeName = o.nodeName ?? defaultNodeName(o.hostnameOverride);
  // The pods directory holds pod logs (upstream uses /var/log/pods; the reference keeps them under the root dir).
  await mkdir(o.rootDir, { recursive: true, mode: 0o700 });
  await mkdir(`${o.rootDir}/pods`, { recursive: true, mode: 0o700 });

  const runtime = new Runtime(o.criEndpoint, o.imageEndpoint);
  let runtimeName = 'unknown';
  try {
    runtimeName = (await runtime.version()).runtime_name;
  } catch (err) {
    runtime.close();
    // grpc-js appends a multi-line resolution note; the first sentence says what failed.
    const why = runtimeMessage(err).replace(/\s*Resolution note:[\s\S]*$/, '').split('\n')[0];
    throw new Error(`cannot reach the container runtime at ${o.criEndpoint}: ${why}`);
  }

  const api = o.api ? new ApiClient({ url: o.api.url, token: o.api.token, caPem: o.api.caPem, userAgent: `agent/v${PACKAGE_VERSION}` }) : undefined;
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c();
    api?.close();
    runtime.close();
  };

  try {
    let hostIP: string | undefined;
    let nodeStatus: NodeStatusManager | undefined;
    if (api) {
      nodeStatus = new NodeStatusManager({
        api, runtime, nodeName, hostnameOverride: o.hostnameOverride, rootDir: o.rootDir,
        updateFrequencyMs: o.nodeStatusUpdateFrequencyMs, reportFrequencyMs: o.nodeStatusReportFrequencyMs,
        onError: (err) => log(`node status: ${(err as Error).message}`),
      });
      await nodeStatus.register();
      nodeStatus.start();
      closers.push(() => nodeStatus!.close());
      hostIP = nodeStatus.internalIP;
      const lease = new LeaseController({
        api, nodeName, nodeUid: () => nodeStatus!.nodeUid,
        leaseDurationSeconds: o.leaseDurationSeconds, renewIntervalMs: o.leaseRenewIntervalMs,
        onError: (err) => log(`lease: ${(err as Error).message}`),
      });
      await lease.start();
      closers.push(() => lease.close());
    }

    const workers = new PodWorkers({
      api, runtime, runtimeName: () => runtimeName, nodeName, rootDir: o.rootDir, hostIP,
      backoffBaseMs: o.backoffBaseMs, backoffMaxMs: o.backoffMaxMs,
      onError: (err, pod) => log(`pod ${pod}: ${(err as Error).message}`),
    });
    closers.push(() => workers.close());

    if (api) {
      const watch = api.watch('/api/v1/pods', {
        fieldSelector: `spec.nodeName=${nodeName}`,
        onList: (items) => workers.setAll(items),
        onEvent: (ev) => {
          if (ev.type === 'DELETED') workers.remove(ev.object);
          else workers.update(ev.object);
        },
        onError: (err) => log(`pod watch: ${(err as Error).message}`),
      });
      closers.push(() => watch.stop());
      await watch.synced;
    }
    // Standalone: no pod source yet (static pods come later), so the pod set is never declared
    // complete and what runs in the runtime is left alone rather than treated as orphans.

    const pleg = new Pleg({
      runtime, periodMs: o.relistPeriodMs,
      onPodChange: (uid) => workers.trigger(uid),
      onError: (err) => log(`pleg: ${(err as Error).message}`),
    });
    pleg.start();
    closers.push(() => pleg.close());
  } catch (err) {
    await closeAll();
    throw err;
  }

  return { nodeName, close: closeAll };
}
