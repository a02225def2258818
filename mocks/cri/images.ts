// The mock runtime's image store and the "registry" it pulls from.
//
// The registry is a catalogue: the default images below plus those declared with `--images`,
// `--images-file`, startMockCri's `images` or the control API (image-declarations.ts), each with its
// tags (one id for all), repo digests, config User and size. Every
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
import { timerDelay } from '../../cri/timers.js';
import { CriError } from './state.js';
import type { ImageMsg } from '../../cri/proto.js';
import type { CheckedDeclaration } from './image-declarations.js';

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
  /** The image config's User ('' for root by default); users.ts resolves it for a container. */
  user: string;
  entrypoint: string[];
  cmd: string[];
  pinned: boolean;
  /** The catalogue image this record comes from. */
  entry: CatalogueImage;
}

/** An image the registry knows: every reference in its normalised form. */
export interface CatalogueImage {
  id: string;
  tags: string[];            // name:tag
  digests: string[];         // name@sha256:<hex>, one for every repository of its tags at least
  size: number;
  user: string;
  entrypoint: string[];
  cmd: string[];
  pinned: boolean;
  /** Where it was declared: the default set, the start options, or the control API (gone on reset). */
  origin: 'default' | 'start' | 'control';
}

export interface ImageStoreOptions {
  /** More images for the catalogue (and the preloaded store), as given to `--images` or startMockCri. */
  declared?: CheckedDeclaration[];
  pullDelayMs?: number;
  /** Where the image filesystem is said to be (ImageFsInfo). */
  fsMountpoint: string;
}

const repoOf = (ref: string) => ref.replace(/@.*$/, '').replace(/:[^:/]*$/, '');

function defaultImage(e: CatalogueEntry): CatalogueImage {
  const key = `${e.repo}\n${e.tags.join(',')}\n${e.digest ?? ''}`;
  const digest = e.digest ?? `sha256:${sha256(`mock-cri image manifest\n${key}`)}`;
  return {
    id: `sha256:${sha256(`mock-cri image config\n${key}`)}`, tags: e.tags.map((t) => `${e.repo}:${t}`), digests: [`${e.repo}@${digest}`],
    size: e.size, user: e.user, entrypoint: e.entrypoint, cmd: e.cmd, pinned: e.pinned ?? false, origin: 'default',
  };
}

/** A declared image: its id and derived manifest digest follow from what was declared, so they are stable. */
function declaredImage(d: CheckedDeclaration, origin: CatalogueImage['origin']): CatalogueImage {
  const user = d.user ?? '';
  const key = `${d.tags.join(',')}\n${d.digests.join(',')}\n${user}\n${d.size ?? ''}`;
  const derived = `sha256:${sha256(`mock-cri image manifest\n${key}`)}`;
  // As a pull records it: every repository the image is tagged in has a repo digest.
  const digests = [...d.digests];
  for (const repo of new Set(d.tags.map(repoOf))) {
    if (!digests.some((g) => repoOf(g) === repo)) digests.push(`${repo}@${derived}`);
  }
  const first = (d.tags[0] ?? d.digests[0])!;
  return {
    id: `sha256:${sha256(`mock-cri image config\n${key}`)}`, tags: [...d.tags], digests,
    size: d.size ?? syntheticSize(repoOf(first)), user, entrypoint: [], cmd: [], pinned: false, origin,
  };
}

export class ImageStore {
  private catalogue: CatalogueImage[];
  private readonly startCatalogue: CatalogueImage[];
  private readonly images = new Map<string, ImageRecord>();
  readonly pullDelayMs: number;
  readonly fsMountpoint: string;

  constructor(opts: ImageStoreOptions) {
    this.pullDelayMs = opts.pullDelayMs ?? 50;
    this.fsMountpoint = opts.fsMountpoint;
    this.catalogue = DEFAULT_IMAGES.map(defaultImage);
    for (const d of opts.declared ?? []) {
      // A bare reference the default set already has adds nothing: it keeps the default's description.
      const plain = d.tags.length === 1 && d.digests.length === 0 && d.user === undefined && d.size === undefined;
      if (plain && this.catalogue.some((c) => c.tags.includes(d.tags[0]!))) continue;
      this.put(declaredImage(d, 'start'));
    }
    this.startCatalogue = [...this.catalogue];
    this.reset();
  }

  /** Adds an image to the catalogue; references it claims are taken from any image that had them. */
  private put(img: CatalogueImage): void {
    const claimed = new Set([...img.tags, ...img.digests]);
    const kept: CatalogueImage[] = [];
    for (const c of this.catalogue) {
      if (c.id === img.id) continue;
      const tags = c.tags.filter((t) => !claimed.has(t));
      const digests = c.digests.filter((g) => !claimed.has(g));
      // An image that lost every tag it had is gone (a registry would no longer list it by name);
      // one declared by digest only stays while it has a digest.
      if (c.tags.length > 0 ? tags.length > 0 : digests.length > 0) kept.push({ ...c, tags, digests });
    }
    this.catalogue = kept;
    this.catalogue.push(img);
    for (const rec of this.images.values()) {
      rec.repoTags = rec.repoTags.filter((t) => !claimed.has(t));
      rec.repoDigests = rec.repoDigests.filter((g) => !claimed.has(g));
      const stays = rec.id === img.id || kept.some((k) => k.id === rec.id);
      if (!stays || (rec.repoTags.length === 0 && rec.repoDigests.length === 0)) this.images.delete(rec.id);
    }
  }

  /** Declares an image at run time (the control API): in the catalogue and present, with all its tags. */
  declare(d: CheckedDeclaration): ImageRecord {
    const img = declaredImage(d, 'control');
    this.put(img);
    return this.add(img, img.tags);
  }

  /** Back to the start state: the start catalogue, every image present with all its tags. */
  reset(): void {
    this.catalogue = [...this.startCatalogue];
    this.images.clear();
    for (const c of this.catalogue) this.add(c, c.tags);
  }

  private add(c: CatalogueImage, tags: string[]): ImageRecord {
    let img = this.images.get(c.id);
    if (!img) {
      img = {
        id: c.id, repoTags: [], repoDigests: [...c.digests], size: c.size, user: c.user,
        entrypoint: c.entrypoint, cmd: c.cmd, pinned: c.pinned, entry: c,
      };
      this.images.set(c.id, img);
    }
    for (const t of tags) if (!img.repoTags.includes(t)) img.repoTags.push(t);
    return img;
  }

  list(): ImageRecord[] {
    return [...this.images.values()];
  }

  /** The catalogue: every image the registry can serve, present or not. */
  catalogueImages(): readonly CatalogueImage[] {
    return this.catalogue;
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
   * Any tag or digest of an image pulls that image (one id); the pulled tag is added to it.
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
    const prefix = `failed to pull and unpack image ${JSON.stringify(full)}: failed to resolve reference ${JSON.stringify(full)}`;
    const found = this.catalogue.find((c) => (p.digest ? c.digests.includes(full) : c.tags.includes(full)));
    if (!found) {
      const knownRepo = this.catalogue.some((c) => [...c.tags, ...c.digests].some((r) => repoOf(r) === p.name));
      if (knownRepo) throw new CriError(grpc.status.NOT_FOUND, `${prefix}: ${full}: not found`);
      const host = p.domain === 'docker.io' ? 'registry-1.docker.io' : p.domain;
      const hostname = host.replace(/:\d+$/, '');
      const url = `https://${host}/v2/${p.path}/manifests/${p.digest ?? p.tag}`;
      throw new CriError(grpc.status.UNKNOWN, `${prefix}: failed to do request: Head ${JSON.stringify(url)}: dial tcp: lookup ${hostname}: no such host`);
    }
    return this.add(found, p.tag ? [full] : []);
  }

  /**
   * Removes the image a reference or id names, with all its tags and digests; absent is not an error.
   * As containerd's RemoveImage: it resolves the reference to the image and deletes every reference to
   * that image, not only the one given.
   */
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

/** An image as the control API shows it (state snapshot, POST /images). */
export function imageView(i: ImageRecord): { id: string; repoTags: string[]; repoDigests: string[]; size: number; user: string; pinned: boolean } {
  return { id: i.id, repoTags: [...i.repoTags], repoDigests: [...i.repoDigests], size: i.size, user: i.user, pinned: i.pinned };
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
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, timerDelay(ms));
    const onAbort = () => { clearTimeout(timer); reject(new CriError(grpc.status.CANCELLED, 'pull cancelled')); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
