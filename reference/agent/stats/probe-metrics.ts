// /metrics/probes (upstream kubelet's prober metrics: prober_probe_total, prober_probe_duration_seconds).
// The reference agent runs no probes (pod-status.ts: a running container is started and ready), so
// these families have no series; upstream's registry leaves families without series out of the text,
// so the answer is an empty exposition, the same as a kubelet whose pods declare no probes. The path
// exists so that scrapers and the node proxy get that answer rather than a 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentRoute } from '../endpoints.js';
import { TEXT_CONTENT_TYPE } from './text-exposition.js';

export function probeMetricsRoute(): AgentRoute {
  return {
    path: '/metrics/probes',
    methods: ['GET', 'HEAD'],
    handle: async (req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': TEXT_CONTENT_TYPE, 'Content-Length': '0' });
      res.end();
    },
  };
}
