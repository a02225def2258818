// Images as a registry describes them (mocks/cri/image-declarations.ts, images.ts): the line syntax of
// `--images`, the object form (startMockCri, control API), strict checking, several tags for one id,
// repo digests, the config User reported as uid or username, the size; pulls by any tag or digest,
// RemoveImage by one tag, control-declared images and reset.
import t from 'tap';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { checkDeclarations, ImageDeclarationError, parseImageLines } from '../../../mocks/cri/image-declarations.js';
import { failure, startCri } from './helpers.js';

const D = (c: string) => `sha256:${c.repeat(64)}`;
const TAGS = 'gcr.io/k8s-staging-cri-tools/test-image-tags';

t.test('the line syntax: a reference starts an image, key=value items describe it', async (t) => {
  t.same(parseImageLines(['busybox:1.36,alpine:3']), [{ tags: ['busybox:1.36'] }, { tags: ['alpine:3'] }], 'plain references stay one image each');
  t.same(parseImageLines([`${TAGS}:1,tag=${TAGS}:2,tag=${TAGS}:3,user=1002:users,size=1234,digest=${D('a')}`, 'x.io/y']), [
    { tags: [`${TAGS}:1`, `${TAGS}:2`, `${TAGS}:3`], user: '1002:users', size: 1234, digests: [D('a')] },
    { tags: ['x.io/y'] },
  ]);
  t.same(parseImageLines([`x.io/d@${D('b')}`]), [{ tags: [], digests: [`x.io/d@${D('b')}`] }], 'an image known by its digest only');
  for (const [line, why] of [
    ['user=1002', /no image reference comes before it/],
    ['busybox,owner=me', /unknown key "owner"/],
    ['busybox,user=', /user needs a value/],
    ['busybox,user=1,user=2', /user is given twice/],
    ['busybox,size=12k', /size must be a number of bytes/],
  ] as const) {
    t.throws(() => parseImageLines([line]), { name: 'ImageDeclarationError', message: why }, line);
  }
});

t.test('declarations are checked strictly and normalised', async (t) => {
  t.same(checkDeclarations([{ tags: ['busybox', 'x.io/a/b:2'], digests: [D('c')], user: 'www-data:users', size: 5 }]), [{
    tags: ['docker.io/library/busybox:latest', 'x.io/a/b:2'], digests: [`docker.io/library/busybox@${D('c')}`], user: 'www-data:users', size: 5,
  }]);
  for (const [decl, why] of [
    [{ tags: [] }, /at least one reference/],
    [{ tags: [`busybox@${D('a')}`] }, /is a digest reference/],
    [{ tags: [], digests: [D('a')] }, /names no repository/],
    [{ tags: ['busybox'], digests: ['busybox:1'] }, /neither sha256/],
    [{ tags: ['busybox', 'busybox:latest'] }, /given twice/],
    [{ tags: ['busybox'], user: '1002:' }, /not an image user/],
    [{ tags: ['busybox'], user: 1002 }, /not an image user/],
    [{ tags: ['busybox'], size: 0 }, /positive whole number/],
    [{ tags: ['busybox'], size: '12' }, /positive whole number/],
    ['busybox', /must be an object/],
  ] as const) {
    t.throws(() => checkDeclarations([decl]), { name: 'ImageDeclarationError', message: why }, JSON.stringify(decl));
  }
  t.throws(() => checkDeclarations([{ tags: ['a.io/x:1'] }, { tags: ['a.io/x:1'] }]), /declared for two images/, 'one reference, two images');
});

t.test('a declared image: every tag and digest names one id; user, digests and size are reported', async (t) => {
  const { c } = await startCri(t, {
    images: [
      `${TAGS}:1,tag=${TAGS}:2,tag=${TAGS}:3,size=7654321`,
      'gcr.io/k8s-staging-cri-tools/test-image-user-uid,user=1002',
      `gcr.io/k8s-staging-cri-tools/test-image-user-uid-group,user=1003:users,digest=${D('d')}`,
      { tags: ['gcr.io/k8s-staging-cri-tools/test-image-user-username'], user: 'www-data' },
      { tags: ['gcr.io/k8s-staging-cri-tools/test-image-user-username-group'], user: 'www-data:users' },
      'registry.k8s.io/e2e-test-images/busybox:1.29-2',
    ],
  });
  const status = async (ref: string) => (await c.call('ImageStatus', { image: { image: ref } })).image;
  const three = await status(`${TAGS}:1`);
  t.same(three.repo_tags, [`${TAGS}:1`, `${TAGS}:2`, `${TAGS}:3`], 'one image under three tags');
  t.equal(three.repo_digests.length, 1, 'one repo digest for the one repository');
  t.equal(three.size, '7654321');
  for (const ref of [`${TAGS}:2`, `${TAGS}:3`, three.repo_digests[0], three.id]) t.equal((await status(ref)).id, three.id, `${ref} names the same image`);
  const listed = (await c.call('ListImages', {})).images.filter((i: any) => i.repo_tags.some((r: string) => r.startsWith(`${TAGS}:`)));
  t.equal(listed.length, 1, 'ListImages has it once');

  const user = async (ref: string) => { const i = await status(ref); return [i.uid, i.username]; };
  // containerd's getUserFromImage: uid when the User (before any ':') is numeric, username otherwise.
  t.same(await user('gcr.io/k8s-staging-cri-tools/test-image-user-uid'), [{ value: '1002' }, '']);
  t.same(await user('gcr.io/k8s-staging-cri-tools/test-image-user-uid-group'), [{ value: '1003' }, '']);
  t.same(await user('gcr.io/k8s-staging-cri-tools/test-image-user-username'), [null, 'www-data']);
  t.same(await user('gcr.io/k8s-staging-cri-tools/test-image-user-username-group'), [null, 'www-data']);
  t.same(await user('registry.k8s.io/e2e-test-images/busybox:1.29-2'), [null, ''], 'no User: neither');
  t.same((await status('gcr.io/k8s-staging-cri-tools/test-image-user-uid-group')).repo_digests, [`gcr.io/k8s-staging-cri-tools/test-image-user-uid-group@${D('d')}`], 'a declared digest');

  // Pulls: any tag or digest pulls the image of that id; a tag the registry lacks is NOT_FOUND.
  await c.call('RemoveImage', { image: { image: `${TAGS}:2` } });
  t.equal(await status(`${TAGS}:1`), null, 'RemoveImage by one tag removes the image with all its tags (as containerd)');
  t.equal(await status(three.id), null);
  t.same(await c.call('PullImage', { image: { image: `${TAGS}:3` } }), { image_ref: three.id }, 'pulled by another tag: the same id');
  t.same((await status(three.id)).repo_tags, [`${TAGS}:3`], 'a pull adds the tag it was asked for');
  t.same(await c.call('PullImage', { image: { image: three.repo_digests[0] } }), { image_ref: three.id }, 'pulled by digest: the same id');
  t.same((await status(three.id)).repo_tags, [`${TAGS}:3`], 'a pull by digest adds no tag');
  t.equal((await failure(c.call('PullImage', { image: { image: `${TAGS}:4` } }))).code, grpc.status.NOT_FOUND);
  t.equal((await failure(c.call('PullImage', { image: { image: 'gcr.io/k8s-staging-cri-tools/unknown:1' } }))).code, grpc.status.UNKNOWN);
});

t.test('a declaration may redescribe a default image\'s tag; a bare default reference changes nothing', async (t) => {
  const { c } = await startCri(t, { images: ['busybox:1.36', 'busybox:latest,user=1000'] });
  const latest = (await c.call('ImageStatus', { image: { image: 'busybox:latest' } })).image;
  const old = (await c.call('ImageStatus', { image: { image: 'busybox:1.36' } })).image;
  t.same(latest.uid, { value: '1000' }, 'busybox:latest is the declared image');
  t.not(latest.id, old.id, 'and no longer the default busybox');
  t.same(old.repo_tags, ['docker.io/library/busybox:1.36'], 'the default image keeps its other tag');
});

function post(socketPath: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request({ socketPath, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (ch: Buffer) => chunks.push(ch));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

t.test('the control API declares images at run time; reset forgets them', async (t) => {
  const { m: m2, c: c2 } = await startCri(t, { control: join(tmpdir(), `images-ctl-${process.pid}.sock`) });
  let r = await post(m2.controlPath!, '/images', { tags: ['example.com/app:1', 'example.com/app:2'], user: '1002', size: 4242 });
  t.equal(r.status, 201);
  t.match(r.body, { repoTags: ['example.com/app:1', 'example.com/app:2'], size: 4242, user: '1002' });
  const img = (await c2.call('ImageStatus', { image: { image: 'example.com/app:2' } })).image;
  t.same([img.id, img.uid, img.size], [r.body.id, { value: '1002' }, '4242'], 'present at once');
  await c2.call('RemoveImage', { image: { image: img.id } });
  t.same(await c2.call('PullImage', { image: { image: 'example.com/app:1' } }), { image_ref: img.id }, 'and pullable');
  r = await post(m2.controlPath!, '/images', { tags: ['example.com/app:3'], user: 'not valid!' });
  t.equal(r.status, 400);
  t.match(r.body.error, /not an image user/);
  m2.control.reset();
  t.equal((await c2.call('ImageStatus', { image: { image: 'example.com/app:1' } })).image, null, 'reset: back to the start catalogue');
  t.equal((await failure(c2.call('PullImage', { image: { image: 'example.com/app:1' } }))).code, grpc.status.UNKNOWN, 'no longer in the registry');
  t.throws(() => m2.control.declareImage({ tags: [] }), ImageDeclarationError, 'in-process too');
});
