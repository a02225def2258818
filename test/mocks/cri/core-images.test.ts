// The image service of the mock CRI runtime: the preloaded set, every reference form a runtime accepts
// (name, name:tag, name@digest, registry-qualified, image id), pulls (delay, unknown tag, unreachable
// registry, bad references), ImageStatus of an absent image, idempotent RemoveImage, ImageFsInfo.
import t, { type Test } from 'tap';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { startMockCri, type MockCriOptions } from '../../../mocks/cri/server.js';
import { DEFAULT_IMAGES, formatReference, parseReference, ReferenceFormatError } from '../../../mocks/cri/images.js';
import { ImageDeclarationError } from '../../../mocks/cri/image-declarations.js';
import { failure, startCri } from './helpers.js';

const start = (t: Test, opts: Partial<MockCriOptions> = {}) => startCri(t, opts);

interface Img { id: string; repo_tags: string[]; repo_digests: string[]; size: string; uid: { value: string } | null; username: string; pinned: boolean }

t.test('reference normalisation follows the docker reference rules containerd uses', async (t) => {
  const norm = (r: string) => formatReference(parseReference(r));
  t.equal(norm('busybox'), 'docker.io/library/busybox:latest');
  t.equal(norm('busybox:1.36'), 'docker.io/library/busybox:1.36');
  t.equal(norm('library/busybox'), 'docker.io/library/busybox:latest');
  t.equal(norm('docker.io/busybox'), 'docker.io/library/busybox:latest');
  t.equal(norm('index.docker.io/library/busybox:1.36'), 'docker.io/library/busybox:1.36');
  t.equal(norm('prom/node-exporter'), 'docker.io/prom/node-exporter:latest');
  t.equal(norm('registry.k8s.io/pause:3.9'), 'registry.k8s.io/pause:3.9');
  t.equal(norm('localhost/app'), 'localhost/app:latest');
  t.equal(norm('localhost:5000/team/app:v2'), 'localhost:5000/team/app:v2');
  const d = `sha256:${'a'.repeat(64)}`;
  t.equal(norm(`busybox@${d}`), `docker.io/library/busybox@${d}`);
  t.equal(norm(`busybox:1.36@${d}`), `docker.io/library/busybox@${d}`, 'the digest wins over the tag');
  for (const bad of ['', 'Busybox', 'Bad::ref', 'busybox@sha256:short', 'busybox:bad tag', 'a//b', 'busybox:', ':tag']) {
    t.throws(() => parseReference(bad), ReferenceFormatError, JSON.stringify(bad));
  }
  t.throws(() => parseReference('Busybox'), /repository name must be lowercase/);
});

t.test('the default set is preloaded with tags, digests, sizes and image users', async (t) => {
  const { c } = await start(t);
  const images: Img[] = (await c.call('ListImages', {})).images;
  t.equal(images.length, DEFAULT_IMAGES.length);
  const tagged = (tag: string) => images.find((i) => i.repo_tags.includes(tag))!;
  const busybox = tagged('docker.io/library/busybox:1.36');
  t.ok(busybox.repo_tags.includes('docker.io/library/busybox:latest'), 'one image, two tags');
  t.match(busybox.id, /^sha256:[0-9a-f]{64}$/);
  t.match(busybox.repo_digests, [/^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/]);
  t.ok(Number(busybox.size) > 0);
  t.equal(busybox.uid, null, 'no user in the image config: uid unset');
  t.equal(busybox.username, '');
  t.same(tagged('gcr.io/distroless/static:nonroot').uid, { value: '65532' }, 'numeric user: uid');
  t.equal(tagged('quay.io/prometheus/node-exporter:latest').username, 'nobody', 'named user: username');
  t.equal(tagged('quay.io/prometheus/node-exporter:latest').uid, null);
  t.equal(tagged('registry.k8s.io/pause:3.9').pinned, true, 'the sandbox image is pinned');
  t.ok(tagged('registry.k8s.io/pause:3.10'));
  t.ok(tagged('docker.io/library/nginx:latest'));
  t.ok(tagged('docker.io/library/alpine:latest'));
});

t.test('ImageStatus and RemoveImage by every reference form; ImageStatus of an absent image is empty', async (t) => {
  const { c } = await start(t);
  const status = async (image: string) => (await c.call('ImageStatus', { image: { image } })).image as Img | null;
  const busybox = (await status('busybox'))!;
  t.ok(busybox);
  const digest = busybox.repo_digests[0].split('@')[1];
  const hex = busybox.id.slice('sha256:'.length);
  for (const ref of ['busybox', 'busybox:latest', 'busybox:1.36', 'library/busybox', 'docker.io/library/busybox:1.36', `busybox@${digest}`, `docker.io/library/busybox@${digest}`, busybox.id, hex]) {
    t.equal((await status(ref))?.id, busybox.id, ref);
  }
  const absent = await c.call('ImageStatus', { image: { image: 'busybox:0.1-nope' } });
  t.same(absent, { image: null, info: {} }, 'absent: empty response, no error');
  t.same(await c.call('ImageStatus', { image: { image: 'Bad::ref' } }), { image: null, info: {} }, 'unparsable: empty as containerd');
  t.same(await c.call('ImageStatus', {}), { image: null, info: {} });
  const verbose = await c.call('ImageStatus', { image: { image: 'distroless/static:nonroot'.replace('distroless', 'gcr.io/distroless') }, verbose: true });
  t.match(JSON.parse(verbose.info.info), { imageSpec: { config: { User: '65532' } } });
  t.same((await c.call('ImageStatus', { image: { image: 'busybox' } })).info, {}, 'info only when verbose');

  // Remove by each form; every form is idempotent.
  const forms = (img: Img) => [img.repo_tags[0], img.repo_digests[0], img.id, img.id.slice(7)];
  const victims = ['busybox', 'nginx', 'alpine', 'registry.k8s.io/pause:3.10'];
  for (const [i, name] of victims.entries()) {
    const img = (await status(name))!;
    const ref = forms(img)[i];
    t.same(await c.call('RemoveImage', { image: { image: ref } }), {}, `remove by ${ref}`);
    t.equal(await status(name), null, `${name} gone`);
    for (const tag of img.repo_tags) t.equal(await status(tag), null, `all its tags gone (${tag})`);
    t.same(await c.call('RemoveImage', { image: { image: ref } }), {}, 'again: still fine');
  }
  t.same(await c.call('RemoveImage', { image: { image: '' } }), {});
  t.same(await c.call('RemoveImage', { image: { image: 'never/was:there' } }), {});
});

t.test('PullImage: every reference form of an allowed image, after the pull delay, answering the image id', async (t) => {
  const { c } = await start(t, { pullDelayMs: 120 });
  const id = (await c.call('ImageStatus', { image: { image: 'busybox' } })).image.id;
  const digest = (await c.call('ImageStatus', { image: { image: 'busybox' } })).image.repo_digests[0].split('@')[1];
  await c.call('RemoveImage', { image: { image: 'busybox' } });
  const t0 = Date.now();
  t.same(await c.call('PullImage', { image: { image: 'busybox:1.36' } }), { image_ref: id });
  t.ok(Date.now() - t0 >= 110, 'the pull takes the delay');
  let img = (await c.call('ImageStatus', { image: { image: 'busybox:1.36' } })).image;
  t.same(img.repo_tags, ['docker.io/library/busybox:1.36'], 'only the tag pulled');
  t.equal((await c.call('ImageStatus', { image: { image: 'busybox:latest' } })).image, null);
  for (const ref of ['busybox', 'docker.io/library/busybox:latest', `busybox@${digest}`, `docker.io/library/busybox@${digest}`]) {
    t.same(await c.call('PullImage', { image: { image: ref } }), { image_ref: id }, ref);
  }
  img = (await c.call('ImageStatus', { image: { image: 'busybox' } })).image;
  t.same(img.repo_tags.sort(), ['docker.io/library/busybox:1.36', 'docker.io/library/busybox:latest']);
  t.same(img.repo_digests, [`docker.io/library/busybox@${digest}`]);
  t.equal((await c.call('PullImage', { image: { image: 'registry.k8s.io/pause:3.9' } })).image_ref, (await c.call('ImageStatus', { image: { image: 'registry.k8s.io/pause:3.9' } })).image.id);
});

t.test('PullImage failures: unreachable registry UNKNOWN, unknown tag NOT_FOUND, bad reference INVALID_ARGUMENT', async (t) => {
  const { c } = await start(t);
  let err = await failure(c.call('PullImage', { image: { image: 'example.com/team/app:v1' } }));
  t.equal(err.code, grpc.status.UNKNOWN);
  t.equal(err.details, 'failed to pull and unpack image "example.com/team/app:v1": failed to resolve reference "example.com/team/app:v1": failed to do request: Head "https://example.com/v2/team/app/manifests/v1": dial tcp: lookup example.com: no such host');
  err = await failure(c.call('PullImage', { image: { image: 'redis' } }));
  t.equal(err.code, grpc.status.UNKNOWN);
  t.match(err.details, /Head "https:\/\/registry-1\.docker\.io\/v2\/library\/redis\/manifests\/latest": dial tcp: lookup registry-1\.docker\.io: no such host$/,
    'docker.io is reached at registry-1.docker.io, as containerd does');
  err = await failure(c.call('PullImage', { image: { image: 'busybox:0.0.1' } }));
  t.equal(err.code, grpc.status.NOT_FOUND, 'a known repository without that tag: the registry answers not found');
  t.equal(err.details, 'failed to pull and unpack image "docker.io/library/busybox:0.0.1": failed to resolve reference "docker.io/library/busybox:0.0.1": docker.io/library/busybox:0.0.1: not found');
  err = await failure(c.call('PullImage', { image: { image: `busybox@sha256:${'0'.repeat(64)}` } }));
  t.equal(err.code, grpc.status.NOT_FOUND);
  for (const bad of ['Bad::ref', '']) {
    err = await failure(c.call('PullImage', { image: { image: bad } }));
    t.equal(err.code, grpc.status.INVALID_ARGUMENT, JSON.stringify(bad));
    t.match(err.details, /^failed to parse image reference ".*": invalid reference format/);
  }
  t.equal((await failure(c.call('PullImage', {}))).code, grpc.status.INVALID_ARGUMENT);
  t.equal((await c.call('ListImages', {})).images.length, DEFAULT_IMAGES.length, 'failed pulls add nothing');
});

t.test('--images adds to the registry and the store; CreateContainer needs the image present', async (t) => {
  const { c } = await start(t, { images: ['example.com/team/app:v1', 'localhost:5000/tool'] });
  const app = (await c.call('ImageStatus', { image: { image: 'example.com/team/app:v1' } })).image as Img;
  t.ok(app, 'preloaded');
  t.same(app.repo_tags, ['example.com/team/app:v1']);
  t.ok((await c.call('ImageStatus', { image: { image: 'localhost:5000/tool:latest' } })).image);
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'u', namespace: 'ns' } } })).pod_sandbox_id;
  const create = (name: string, image: string) => c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name }, image: { image } } });
  t.ok(await create('a', 'example.com/team/app:v1'));
  t.ok(await create('b', app.id), 'by image id');
  await c.call('RemoveImage', { image: { image: 'example.com/team/app:v1' } });
  const err = await failure(create('c', 'example.com/team/app:v1'));
  t.equal(err.code, grpc.status.NOT_FOUND);
  t.match(err.details, /is not present/);
  t.same(await c.call('PullImage', { image: { image: 'example.com/team/app:v1' } }), { image_ref: app.id }, 'pullable again');
  t.ok(await create('c', 'example.com/team/app:v1'));
  await t.rejects(startMockCri({ socket: join(tmpdir(), `bad-${process.pid}.sock`), images: ['Not Valid'] }), ImageDeclarationError, 'a bad --images entry is refused at start');
});

t.test('ListImages filter and ImageFsInfo', async (t) => {
  const { m, c } = await start(t);
  const one = (await c.call('ListImages', { filter: { image: { image: 'nginx' } } })).images;
  t.equal(one.length, 1);
  t.ok(one[0].repo_tags.includes('docker.io/library/nginx:latest'));
  t.same((await c.call('ListImages', { filter: { image: { image: 'nope' } } })).images, []);
  const fs = await c.call('ImageFsInfo', {});
  t.equal(fs.image_filesystems.length, 1);
  t.same(fs.container_filesystems, []);
  const usage = fs.image_filesystems[0];
  t.equal(usage.fs_id.mountpoint, join(m.root, 'images'));
  const total = DEFAULT_IMAGES.reduce((s, e) => s + e.size, 0);
  t.equal(usage.used_bytes.value, String(total), 'the sum of the image sizes');
  t.ok(Number(usage.inodes_used.value) > 0);
  t.match(usage.timestamp, /^\d{19}$/);
  await c.call('RemoveImage', { image: { image: 'nginx' } });
  t.ok(Number((await c.call('ImageFsInfo', {})).image_filesystems[0].used_bytes.value) < total, 'shrinks when an image goes');
});
