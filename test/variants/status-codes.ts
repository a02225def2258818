// Success codes the spec lists side by side (§4.2): create answers 200, 201 or 202; replace,
// patch and their status forms answer 200 or 201. Only the code changes; the body stays.
import type { LegalVariant } from '../helpers/variant-target.js';
import { isApiPath } from '../helpers/variant-target.js';

const isUpdate = (method: string) => method === 'PUT' || method === 'PATCH';

export const statusCodeVariants: LegalVariant[] = [
  {
    name: 'create-200-update-201',
    freedom: '§4.2: create answers 200 (the reference 201); replace and patch answer 201 (the reference 200)',
    hooks: () => ({
      response(req, res) {
        if (!isApiPath(req)) return;
        if (req.method === 'POST' && res.status === 201) res.status = 200;
        else if (isUpdate(req.method) && res.status === 200) res.status = 201;
      },
    }),
  },
  {
    name: 'create-202-update-200',
    freedom: '§4.2: create answers 202; replace and patch that create answer 200 (the reference 201)',
    hooks: () => ({
      response(req, res) {
        if (!isApiPath(req)) return;
        if (req.method === 'POST' && res.status === 201) res.status = 202;
        else if (isUpdate(req.method) && res.status === 201) res.status = 200;
      },
    }),
  },
];
