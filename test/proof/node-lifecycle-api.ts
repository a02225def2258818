// Breakage for the API-only node-lifecycle case (suites/001-node-agent/3-node-lifecycle.ts): the
// default tolerations are admission, not a controller, so a proxy proves it.
import { editJson, type Breakage } from '../helpers/broken-target.js';

export const nodeLifecycleApiBreakages: Record<string, Breakage> = {
  // No DefaultTolerationSeconds admission: pods come back without the 300 s tolerations.
  'api.node-lifecycle.default-tolerations': {
    response(req, res) {
      if (!/\/pods(\/[^/?]+)?(\?|$)/.test(req.path)) return;
      editJson(res, (o) => {
        if (Array.isArray(o?.spec?.tolerations)) o.spec.tolerations = o.spec.tolerations.filter((t: any) => t?.tolerationSeconds !== 300);
        return o;
      });
    },
  },
};
