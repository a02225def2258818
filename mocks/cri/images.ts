// The mock runtime's image store and the "registry" it pulls from.
//
// The registry is a fixed catalogue: the default images below plus those given with `--images`. Every
// catalogue image is present at start (preloaded); PullImage of a catalogue reference succeeds after a short
// delay, a known repository with an unknown tag or digest fails NOT_FOUND as a reachable registry answers,
// and anything else fails UNKNOWN as an unreachable registry does (the message is containerd's for a
// registry it cannot resolve). Removing an image drops it from the store; pulling it again brings it back.
//
// References are normalised as containerd does (docker reference rules): `busybox` is
// `docker.io/library/busybox:latest`, `nginx:1.25` is `docker.io/library/nginx:1.25`, a first path element
// with a `.` or `:` or equal to `localhost` is a registry, a digest wins over a tag, and an image may also be
// named by its id (`sha256:<hex>` or the bare 64 hex digits).
import { createHash } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { nowNs } from './clock.js';
import { CriError } from './state.js';
import type { ImageMsg } from '../../cri/proto.js';

/** Default images: small, common, and between them every form of image user (none, numeric, named). */
export const DEFAULT_IMAGES: readonly CatalogueEntry[] = [
  { repo: 'registry.k8s.io/pause', tags: ['3.9'], size: 321_520, user: '65535', entrypoint: ['/pause'], cmd: [], pinned: true },
  { repo: 'registry.k8s.io/pause', tags: ['3.10'], size: 320_368, user: '65535', entrypoint: ['/pause'], cmd: [], pinned: true },
  { repo: 'docker.io/library/busybox', tags: ['1.36', 'latest'], size: 2_231_050, user: '', entrypoint: [], cmd: ['sh'] },
  { repo: 'docker.io/library/alpine', tags: ['3.20', 'latest'], size: 3_626_898, user: '', entrypoint: [], cmd: ['/bin/sh'] },
  { repo: 'docker.io/library/nginx', tags: ['1.27', 'latest'], size: 72_950_530, user: '', entrypoint: ['/docker-entrypoint.sh'], cmd: ['nginx', '-g', 'daemon off;'] },
  { repo: 'gcr.io/distroless/static', tags: ['nonroot'], size: 1_002_304, user: '65532', entrypoint: [], cmd: [] },
  { repo: 'quay.io/prometheus/node-exporter', tags: ['v1.8.2', 'latest'], size: 11_523_107, user: 'nobody', entrypoint: ['/bin/node_exporter'], cmd: [] },
];

export interface CatalogueEntry {
  repo: string;              // normalised name, e.g. docker.io/library/busybox
  tags: string[];
  size: number;              // bytes, > 0
  user: string;              // the image config's User: '' (root by default), numeric uid, or a name
  entrypoint: string[];
  cmd: string[];
  digest?: string;           // manifest digest; derived from repo and tags when absent
  pinned?: boolean;
}

export interface ParsedReference {
  domain: string;
  path: string;              // e.g. library/busybox
  name: string;              // domain/path
  tag?: string;              // absent when a digest is given (the digest wins) or neither is (then latest)
  digest?: string;           // sha256:<64 hex>
}

/** A reference that is not of docker reference syntax; messages are the reference library's. */
export class ReferenceFormatError extends Error {
  override name = 'ReferenceFormatError';
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const HEX64 = /^[a-f0-9]{64}$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?$|^\[[a-fA-F0-9:]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;

export function parseReference(ref: string): ParsedReference {
  if (ref === '') throw new ReferenceFormatError('invalid reference format');
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new ReferenceFormatError('invalid reference format');
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new ReferenceFormatError('invalid reference format');
  }
  if (rest === '') throw new ReferenceFormatError('invalid reference format');
  let domain = 'docker.io';
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(slash + 1);
    }
  }
  if (domain !== 'docker.io' && !DOMAIN.test(domain)) throw new ReferenceFormatError('invalid reference format');
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (path !== path.toLowerCase()) throw new ReferenceFormatError('invalid reference format: repository name must be lowercase');
  if (HEX64.test(path) && domain === 'docker.io' && !tag && !digest) {
    throw new ReferenceFormatError('invalid repository name (' + path + '), cannot specify 64-byte hexadecimal strings');
  }
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  if (!path.split('/').every((c) => PATH_COMPONENT.test(c))) throw new ReferenceFormatError('invalid reference format');
  const name = `${domain}/${path}`;
  if (name.length > 255) throw new ReferenceFormatError('repository name must not be more than 255 characters');
  return digest ? { domain, path, name, digest } : { domain, path, name, tag: tag ?? 'latest' };
}

/** The normalised string form: name:tag, or name@digest when a digest was given. */
export function formatReference(p: ParsedReference): string {
  return p.digest ? `${p.name}@${p.digest}` : `${p.name}:${p.tag}`;
}

/** An image id given directly: `sha256:<hex>` or the bare 64 hex digits; the full id, else undefined. */
export function imageIdOf(ref: string): string | undefined {
  if (DIGEST.test(ref)) return ref;
  if (HEX64.test(ref)) return `sha256:${ref}`;
  return undefined;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface ImageRecord {
  id: string;                // sha256:<hex> of the (simulated) config
  repoTags: string[];
  repoDigests: string[];
  size: number;
  user: string;
  entrypoint: string[];
  cmd: string[];
  pinned: boolean;
  /** The catalogue entry this image comes from. */
  entry: CatalogueEntry;
}

interface CatalogueImage { entry: CatalogueEntry; id: string; digest: string }

export interface ImageStoreOptions {
  /** More references for the catalogue (and the preloaded store), as given to `--images`. */
  extra?: string[];
  pullDelayMs?: number;
  /** Where the image filesystem is said to be (ImageFsInfo). */
  fsMountpoint: string;
}

export class ImageStore {
  private readonly catalogue: CatalogueImage[];
  private readonly images = new Map<string, ImageRecord>();
  readonly pullDelayMs: number;
  readonly fsMountpoint: string;

  constructor(opts: ImageStoreOptions) {
    this.pullDelayMs = opts.pullDelayMs ?? 50;
    this.fsMountpoint = opts.fsMountpoint;
    const entries: CatalogueEntry[] = DEFAULT_IMAGES.map((e) => ({ ...e, tags: [...e.tags] }));
    for (const ref of opts.extra ?? []) {
      const p = parseReference(ref.trim()); // a bad --images entry is a usage error: let it throw
      const known = entries.some((e) => e.repo === p.name && (p.tag ? e.tags.includes(p.tag) : false));
      if (known) continue;
      entries.push({ repo: p.name, tags: p.tag ? [p.tag] : [], digest: p.digest, size: syntheticSize(p.name), user: '', entrypoint: [], cmd: [] });
    }
    this.catalogue = entries.map((entry) => {
      const key = `${entry.repo}\n${entry.tags.join(',')}\n${entry.digest ?? ''}`;
      return { entry, id: `sha256:${sha256(`mock-cri image config\n${key}`)}`, digest: entry.digest ?? `sha256:${sha256(`mock-cri image manifest\n${key}`)}` };
    });
    this.reset();
  }

  /** Back to the start state: every catalogue image present with all its tags. */
  reset(): void {
    this.images.clear();
    for (const c of this.catalogue) {
      this.add(c, c.entry.tags.map((t) => `${c.entry.repo}:${t}`));
    }
  }

  private add(c: CatalogueImage, tags: string[]): ImageRecord {
    let img = this.images.get(c.id);
    if (!img) {
      img = {
        id: c.id, repoTags: [], repoDigests: [`${c.entry.repo}@${c.digest}`], size: c.entry.size, user: c.entry.user,
        entrypoint: c.entry.entrypoint, cmd: c.entry.cmd, pinned: c.entry.pinned ?? false, entry: c.entry,
      };
      this.images.set(c.id, img);
    }
    for (const t of tags) if (!img.repoTags.includes(t)) img.repoTags.push(t);
    return img;
  }

  list(): ImageRecord[] {
    return [...this.images.values()];
  }

  /** The present image a reference or id names, or undefined (also for an unparsable reference). */
  resolve(ref: string): ImageRecord | undefined {
    const id = imageIdOf(ref);
    if (id) return this.images.get(id);
    let p: ParsedReference;
    try { p = parseReference(ref); } catch { return undefined; }
    const want = formatReference(p);
    for (const img of this.images.values()) {
      if (p.digest ? img.repoDigests.includes(want) : img.repoTags.includes(want)) return img;
    }
    return undefined;
  }

  /**
   * Pulls from the catalogue after the pull delay. Throws CriError: INVALID_ARGUMENT for an unparsable
   * reference, NOT_FOUND for a known repository without that tag or digest, UNKNOWN for any other
   * repository (the registry is unreachable), CANCELLED when `signal` aborts during the delay.
   */
  async pull(ref: string, signal?: AbortSignal): Promise<ImageRecord> {
    let p: ParsedReference;
    try {
      p = parseReference(ref);
    } catch (err) {
      throw new CriError(grpc.status.INVALID_ARGUMENT, `failed to parse image reference ${JSON.stringify(ref)}: ${(err as Error).message}`);
    }
    const full = formatReference(p);
    await delay(this.pullDelayMs, signal);
    const sameRepo = this.catalogue.filter((c) => c.entry.repo === p.name);
    const prefix = `failed to pull and unpack image ${JSON.stringify(full)}: failed to resolve reference ${JSON.stringify(full)}`;
    if (sameRepo.length === 0) {
      const host = p.domain === 'docker.io' ? 'registry-1.docker.io' : p.domain;
      const hostname = host.replace(/:\d+$/, '');
      const url = `https://${host}/v2/${p.path}/manifests/${p.digest ?? p.tag}`;
      throw new CriError(grpc.status.UNKNOWN, `${prefix}: failed to do request: Head ${JSON.stringify(url)}: dial tcp: lookup ${hostname}: no such host`);
    }
    const found = sameRepo.find((c) => (p.digest ? c.digest === p.digest : c.entry.tags.includes(p.tag!)));
    if (!found) throw new CriError(grpc.status.NOT_FOUND, `${prefix}: ${full}: not found`);
    return this.add(found, p.tag ? [full] : []);
  }

  /** Removes the image a reference or id names, with all its tags; absent is not an error. */
  remove(ref: string): void {
    const img = this.resolve(ref);
    if (img) this.images.delete(img.id);
  }

  fsUsage(): { timestamp: string; fs_id: { mountpoint: string }; used_bytes: { value: string }; inodes_used: { value: string } } {
    let bytes = 0;
    let inodes = 0;
    for (const img of this.images.values()) {
      bytes += img.size;
      inodes += Math.max(1, Math.ceil(img.size / 32_768));
    }
    return { timestamp: nowNs().toString(), fs_id: { mountpoint: this.fsMountpoint }, used_bytes: { value: String(bytes) }, inodes_used: { value: String(inodes) } };
  }
}

/** uid or username as containerd reports them from the image config's User ("uid[:gid]" or "name[:group]"). */
export function imageUser(user: string): { uid: { value: string } | null; username: string } {
  const u = user.split(':')[0];
  if (u === '') return { uid: null, username: '' };
  if (/^\d+$/.test(u)) return { uid: { value: u }, username: '' };
  return { uid: null, username: u };
}

export function imageMessage(img: ImageRecord): ImageMsg {
  const { uid, username } = imageUser(img.user);
  return {
    id: img.id,
    repo_tags: [...img.repoTags],
    repo_digests: [...img.repoDigests],
    size: String(img.size),
    uid,
    username,
    spec: { image: img.id, annotations: {}, user_specified_image: '', runtime_handler: '' },
    pinned: img.pinned,
  };
}

/** ImageStatus verbose info: the parts of the image config a runtime shows, as JSON. */
export function imageInfo(img: ImageRecord): Record<string, string> {
  return {
    info: JSON.stringify({
      id: img.id,
      repoTags: img.repoTags,
      repoDigests: img.repoDigests,
      size: img.size,
      pinned: img.pinned,
      imageSpec: { architecture: 'amd64', os: 'linux', config: { User: img.user, Entrypoint: img.entrypoint, Cmd: img.cmd, Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] } },
    }),
  };
}

function syntheticSize(name: string): number {
  return 1_000_000 + (parseInt(sha256(name).slice(0, 6), 16) % 50_000_000);
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CriError(grpc.status.CANCELLED, 'pull cancelled'));
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(new CriError(grpc.status.CANCELLED, 'pull cancelled')); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
