// Image declarations: how a user tells the mock runtime's registry about an image, as a registry would
// describe it: the references (tags) it is known by, its repo digests, the image config's User, its size.
//
// Two forms, checked strictly (any mistake is an ImageDeclarationError, a usage error at start):
// - a line, as `--images` and `startMockCri({ images: ['...'] })` take it: comma-separated items,
//   where a reference starts a new image and `key=value` items describe the image before them:
//     registry.k8s.io/e2e-test-images/busybox:1.29-2
//     gcr.io/x/test-image-tags:1,tag=gcr.io/x/test-image-tags:2,tag=gcr.io/x/test-image-tags:3
//     gcr.io/x/test-image-user-uid-group,user=1003:users,size=1234567,digest=sha256:<64 hex>
//   Keys: tag (another reference; repeatable), digest (`sha256:<hex>` of the first reference's
//   repository, or `name@sha256:<hex>`; repeatable), user (`uid`, `uid:gid`, `name`, `name:group`),
//   size (bytes). A reference never contains `=`, so the two kinds of item cannot be confused.
// - an object (control API `POST /images`, `--images-file` entries, `startMockCri({ images: [{...}] })`):
//   { tags: string[], digests?: string[], user?: string, size?: number }.
// A first reference of the form `name@sha256:<hex>` declares an image known only by its digest.
import { formatReference, parseReference, ReferenceFormatError } from './images.js';
import { USER_SYNTAX } from './users.js';

/** One image as declared (the object form). */
export interface ImageDeclaration {
  /** References the image is known by (tagged; `busybox` means `docker.io/library/busybox:latest`). */
  tags: string[];
  /** Repo digests: `name@sha256:<hex>`, or `sha256:<hex>` for the first tag's repository. */
  digests?: string[];
  /** The image config's User: `1002`, `1002:1002`, `www-data`, `www-data:users`; absent means root. */
  user?: string;
  /** Bytes, a positive integer; absent means a size derived from the name. */
  size?: number;
}

/** A declaration after checking: every reference in its normalised form. */
export interface CheckedDeclaration {
  tags: string[];            // name:tag
  digests: string[];         // name@sha256:<hex>
  user?: string;
  size?: number;
}

export class ImageDeclarationError extends Error {
  override name = 'ImageDeclarationError';
}

const DECLARATION_FIELDS = ['tags', 'digests', 'user', 'size'];
const LINE_KEYS = ['tag', 'digest', 'user', 'size'];
const BARE_DIGEST = /^sha256:[a-f0-9]{64}$/;
/** Below 2^53 and far above any real image: a size that survives JSON and proto int64 as a string. */
const MAX_SIZE = Number.MAX_SAFE_INTEGER;
/** A declaration naming more references than this is a mistake (and a cheap way to bloat the store). */
const MAX_REFS = 64;

/** Parses `--images` values (each a line as described above) into declarations, in order. */
export function parseImageLines(lines: readonly string[]): ImageDeclaration[] {
  const out: ImageDeclaration[] = [];
  let current: ImageDeclaration | undefined;
  const seenKeys = new Set<string>();
  for (const line of lines) {
    if (typeof line !== 'string') throw new ImageDeclarationError(`an image declaration must be a string (got ${typeof line})`);
    for (const raw of line.split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const eq = item.indexOf('=');
      if (eq < 0) {
        current = item.includes('@') ? { tags: [], digests: [item] } : { tags: [item] };
        seenKeys.clear();
        out.push(current);
        continue;
      }
      const key = item.slice(0, eq).trim();
      const value = item.slice(eq + 1).trim();
      if (!current) throw new ImageDeclarationError(`"${item}" describes an image, but no image reference comes before it (write the reference first: <ref>,${item})`);
      if (!LINE_KEYS.includes(key)) throw new ImageDeclarationError(`"${item}": unknown key "${key}" (known: ${LINE_KEYS.join(', ')})`);
      if (value === '') throw new ImageDeclarationError(`"${item}": ${key} needs a value`);
      if ((key === 'user' || key === 'size') && seenKeys.has(key)) throw new ImageDeclarationError(`"${item}": ${key} is given twice for one image`);
      seenKeys.add(key);
      if (key === 'tag') current.tags.push(value);
      else if (key === 'digest') (current.digests ??= []).push(value);
      else if (key === 'user') current.user = value;
      else {
        if (!/^\d{1,16}$/.test(value)) throw new ImageDeclarationError(`"${item}": size must be a number of bytes`);
        current.size = Number(value);
      }
    }
  }
  return out;
}

/** Checks one declaration (either form, after parsing) and normalises its references. */
export function checkDeclaration(decl: unknown): CheckedDeclaration {
  if (decl === null || typeof decl !== 'object' || Array.isArray(decl)) throw new ImageDeclarationError('an image declaration must be an object {tags, digests?, user?, size?}');
  const d = decl as Record<string, unknown>;
  for (const k of Object.keys(d)) {
    if (!DECLARATION_FIELDS.includes(k)) throw new ImageDeclarationError(`unknown field "${k}" in an image declaration (known: ${DECLARATION_FIELDS.join(', ')})`);
  }
  const tags = stringList(d.tags, 'tags');
  const digestsIn = d.digests === undefined ? [] : stringList(d.digests, 'digests');
  if (tags.length === 0 && digestsIn.length === 0) throw new ImageDeclarationError('an image declaration needs at least one reference in "tags" (or a name@sha256:<hex> in "digests")');
  if (tags.length + digestsIn.length > MAX_REFS) throw new ImageDeclarationError(`an image declaration names more than ${MAX_REFS} references`);
  const name = (tags[0] ?? digestsIn[0])!;
  const normTags = tags.map((t) => {
    const p = parse(t, 'tags');
    if (p.digest) throw new ImageDeclarationError(`tags: "${t}" is a digest reference: give it in "digests" (or with digest= on the command line)`);
    return formatReference(p);
  });
  const firstRepo = tags.length > 0 ? parseReference(tags[0]!).name : undefined;
  const digests = digestsIn.map((g) => {
    if (BARE_DIGEST.test(g)) {
      if (!firstRepo) throw new ImageDeclarationError(`digests: "${g}" names no repository, and the image has no tag to take it from: write name@${g}`);
      return `${firstRepo}@${g}`;
    }
    const p = parse(g, 'digests');
    if (!p.digest) throw new ImageDeclarationError(`digests: "${g}" is neither sha256:<64 hex> nor name@sha256:<64 hex>`);
    return formatReference(p);
  });
  const out: CheckedDeclaration = { tags: unique(normTags, name), digests: unique(digests, name) };
  if (d.user !== undefined) {
    if (typeof d.user !== 'string' || !USER_SYNTAX.test(d.user)) {
      throw new ImageDeclarationError(`user of ${name}: ${JSON.stringify(d.user)} is not an image user (uid, uid:gid, name or name:group)`);
    }
    out.user = d.user;
  }
  if (d.size !== undefined) {
    if (typeof d.size !== 'number' || !Number.isInteger(d.size) || d.size <= 0 || d.size > MAX_SIZE) {
      throw new ImageDeclarationError(`size of ${name}: ${JSON.stringify(d.size)} is not a positive whole number of bytes`);
    }
    out.size = d.size;
  }
  return out;
}

/**
 * Checks a list of declarations as one input (a command line, a file, a startMockCri option): each
 * declaration alone, and no reference declared twice (which image would it name?).
 */
export function checkDeclarations(list: readonly unknown[]): CheckedDeclaration[] {
  const checked = list.map((d, i) => {
    try {
      return checkDeclaration(d);
    } catch (err) {
      if (err instanceof ImageDeclarationError && list.length > 1) throw new ImageDeclarationError(`image ${i + 1}: ${err.message}`);
      throw err;
    }
  });
  const owner = new Map<string, number>();
  checked.forEach((d, i) => {
    for (const ref of [...d.tags, ...d.digests]) {
      const prev = owner.get(ref);
      if (prev !== undefined && prev !== i) throw new ImageDeclarationError(`${ref} is declared for two images (${prev + 1} and ${i + 1})`);
      owner.set(ref, i);
    }
  });
  return checked;
}

/** Declarations from startMockCri's `images` option: lines and objects, in any mix. */
export function declarationsOf(images: ReadonlyArray<string | ImageDeclaration>): CheckedDeclaration[] {
  const objects: unknown[] = [];
  for (const item of images) {
    if (typeof item === 'string') objects.push(...parseImageLines([item]));
    else objects.push(item);
  }
  return checkDeclarations(objects);
}

function stringList(v: unknown, field: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new ImageDeclarationError(`"${field}" must be a list of strings`);
  return (v as string[]).map((s) => s.trim());
}

function parse(ref: string, field: string) {
  try {
    return parseReference(ref);
  } catch (err) {
    if (err instanceof ReferenceFormatError) throw new ImageDeclarationError(`${field}: "${ref}" is not an image reference: ${err.message}`);
    throw err;
  }
}

function unique(refs: string[], name: string): string[] {
  const seen = new Set<string>();
  for (const r of refs) {
    if (seen.has(r)) throw new ImageDeclarationError(`${name}: ${r} is given twice`);
    seen.add(r);
  }
  return refs;
}
