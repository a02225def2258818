// Events (events.orch.io/v1, spec 000 §2.7) a controller records about the objects it acts on, as
// upstream's event recorder: best effort, never failing the caller.
import { ApiError, type ApiClient } from '../client/api-client.js';
import type { KubeObject } from '../client/informer.js';

export interface EventRecorder {
  /** `type` Normal or Warning; `reason` CamelCase; `action` what was done; `note` for people. */
  record(regarding: KubeObject, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void;
}

export function eventRecorder(client: ApiClient, reportingController: string, reportingInstance: string, log: (m: string, e?: unknown) => void): EventRecorder {
  let seq = 0;
  return {
    record(regarding, type, reason, action, note) {
      const ns = regarding.metadata.namespace || 'default';
      const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
      const name = `${regarding.metadata.name}.${Date.now().toString(16)}${(seq++).toString(16)}`.slice(0, 253);
      const ev = {
        apiVersion: 'events.orch.io/v1',
        kind: 'Event',
        metadata: { name, namespace: ns },
        eventTime: now,
        type,
        reason,
        action,
        note: note.slice(0, 1024),
        reportingController,
        reportingInstance,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          namespace: regarding.metadata.namespace,
          name: regarding.metadata.name,
          uid: regarding.metadata.uid,
          resourceVersion: regarding.metadata.resourceVersion,
        },
      };
      client.create(`/apis/events.orch.io/v1/namespaces/${ns}/events`, ev).catch((err) => {
        // Best effort; after the component closed its client, a failed event is expected, not news.
        // A namespace being deleted (403) or gone (404) takes its events with it: nothing to report.
        if (!client.isClosed && !(err instanceof ApiError && (err.status === 403 || err.status === 404))) log(`event ${reason} on ${name} not recorded`, err);
      });
    },
  };
}
