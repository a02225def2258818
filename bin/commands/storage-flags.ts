// `serve --storage memory|etcd` and the `--etcd-*` flags, checked and read into the reference's
// storage options: every bad combination is a usage error (exit 2) before anything starts.
import { readFileSync } from 'node:fs';
import type { ReferenceOptions } from '../../reference/server.js';
import { UsageError } from '../../runner/errors.js';
import { parseDurationMs } from '../../reference/duration.js';

const ETCD_FLAGS = ['etcdServers', 'etcdCafile', 'etcdCertfile', 'etcdKeyfile', 'etcdRequestTimeout'] as const;
const FLAG_NAME: Record<(typeof ETCD_FLAGS)[number], string> = {
  etcdServers: '--etcd-servers', etcdCafile: '--etcd-cafile', etcdCertfile: '--etcd-certfile', etcdKeyfile: '--etcd-keyfile', etcdRequestTimeout: '--etcd-request-timeout',
};

function readPem(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

export function storageFromFlags(argv: any): Pick<ReferenceOptions, 'storage' | 'etcd'> {
  const kind = String(argv.storage);
  if (kind === 'memory') {
    const stray = ETCD_FLAGS.find((f) => argv[f] !== undefined);
    if (stray) throw new UsageError(`${FLAG_NAME[stray]} needs --storage etcd`);
    return { storage: 'memory' };
  }
  if (kind !== 'etcd') throw new UsageError(`--storage ${kind}: want memory or etcd`);
  const servers = String(argv.etcdServers ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (servers.length === 0) throw new UsageError('--storage etcd needs --etcd-servers <url,...>, e.g. http://127.0.0.1:2379');
  for (const s of servers) {
    let url: URL | undefined;
    try {
      url = new URL(s);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      throw new UsageError(`--etcd-servers ${s}: want a client URL such as http://127.0.0.1:2379`);
    }
  }
  const prefix = String(argv.etcdPrefix ?? '/registry');
  if (!prefix.startsWith('/')) throw new UsageError(`--etcd-prefix ${prefix}: want a key prefix starting with /`);
  if ((argv.etcdCertfile === undefined) !== (argv.etcdKeyfile === undefined)) throw new UsageError('--etcd-certfile and --etcd-keyfile go together');
  const tls = argv.etcdCafile !== undefined || argv.etcdCertfile !== undefined
    ? {
        caPem: argv.etcdCafile !== undefined ? readPem(argv.etcdCafile, '--etcd-cafile') : undefined,
        certPem: argv.etcdCertfile !== undefined ? readPem(argv.etcdCertfile, '--etcd-certfile') : undefined,
        keyPem: argv.etcdKeyfile !== undefined ? readPem(argv.etcdKeyfile, '--etcd-keyfile') : undefined,
      }
    : undefined;
  let requestTimeoutMs: number | undefined;
  if (argv.etcdRequestTimeout !== undefined) {
    requestTimeoutMs = parseDurationMs(String(argv.etcdRequestTimeout));
    if (requestTimeoutMs === undefined || requestTimeoutMs <= 0) throw new UsageError(`--etcd-request-timeout ${String(argv.etcdRequestTimeout)}: want a positive duration such as 500ms or 5s`);
  }
  return { storage: 'etcd', etcd: { servers, prefix: prefix.replace(/\/+$/, ''), tls, ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}) } };
}
