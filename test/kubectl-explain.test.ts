// The real kubectl's `explain` against `serve`: from /openapi/v3 (the default) and from /openapi/v2
// (`--output=plaintext-openapiv2`, which kubectl fetches as gnostic protobuf), every kind shows its
// description, each field's description in the spec's words, and `-required-` on the spec's `*`
// fields. kubectl must be on PATH (CI installs it); without it this test fails rather than skipping.
import t from 'tap';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

t.test('kubectl explain: descriptions and required fields, from v3 and v2', async (t) => {
  // GenericWorkload serves PodGroup too, so that every kind the reference has is explained.
  const ref = await startServe(t, ['--plain-http', '--controllers', '', '--no-scheduler', '--feature-gates', 'GenericWorkload=true']);
  const { kubectl } = kubectlAgainst(t, ref.url);
  const version = await kubectl('version', '--client');
  if (version.exitCode !== 0) {
    t.fail(`kubectl is not runnable (${version.failed ? version.shortMessage : version.stderr}); CI must install it on PATH`);
    return;
  }
  const explain = async (...args: string[]): Promise<string> => {
    const r = await kubectl('explain', ...args);
    t.equal(r.exitCode, 0, `kubectl explain ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  // kubectl wraps descriptions at 80 columns.
  const words = (s: string): string => s.replace(/\s+/g, ' ');

  const sc = await explain('sc');
  t.match(sc, /^GROUP:\s+storage\.orch\.io\nKIND:\s+StorageClass\nVERSION:\s+v1\n/, 'the kind, found by its short name');
  t.match(words(sc), 'DESCRIPTION: Parameters of a class of storage for which persistent volumes are dynamically provisioned. Cluster-scoped.', "the kind's description (spec §1)");
  t.match(sc, /^ {2}provisioner\t<string> -required-\n {4}Type of the provisioner\.$/m, 'provisioner: required, in the spec\'s words');
  t.match(sc, /^ {2}reclaimPolicy\t<string>\n {4}Reclaim policy of dynamically provisioned volumes\. Default `Delete`\./m, 'an optional field, not marked');
  t.notMatch(sc, '<no description>', 'every field has a description');

  const provisioner = await explain('storageclass.provisioner');
  t.match(provisioner, /^FIELD: provisioner <string>$/m);
  t.match(words(provisioner), 'DESCRIPTION: Type of the provisioner.', 'one field: its description');

  const erSpec = await explain('evictionrequest.spec');
  for (const f of ['intent', 'requester', 'target']) t.match(erSpec, new RegExp(`^ {2}${f}\\t<\\w+> -required-$`, 'm'), `evictionrequest.spec.${f} is required (spec §2.5)`);
  const uid = await explain('evictionrequest.spec.target.pod.uid');
  t.match(uid, /^GROUP:\s+lifecycle\.orch\.io\nKIND:\s+EvictionRequest\nVERSION:\s+v1alpha1\n/);
  t.match(words(uid), "DESCRIPTION: Lowercase UUID, 8-4-4-4-12 format, equal to the pod's metadata.uid.", 'a field four levels down');
  const pod = await explain('evictionrequest.spec.target.pod');
  t.match(pod, /^ {2}name\t<string> -required-$/m);
  t.match(pod, /^ {2}uid\t<string> -required-$/m);

  const v2 = await explain('sc', '--output=plaintext-openapiv2');
  t.match(v2, /^KIND:\s+StorageClass\nVERSION:\s+storage\.orch\.io\/v1\n/, 'from /openapi/v2 (protobuf)');
  t.match(words(v2), 'DESCRIPTION: Parameters of a class of storage for which persistent volumes are dynamically provisioned. Cluster-scoped.');
  t.match(v2, /^ {3}provisioner\t<string> -required-\n {5}Type of the provisioner\.$/m, 'required and described in v2 too');
  t.notMatch(v2, '<no description>');
  const v2Field = await explain('pods.spec.containers', '--output=plaintext-openapiv2');
  t.match(v2Field, /^ {3}name\t<string> -required-$/m, 'a nested list of objects in v2');
  t.match(words(v2Field), 'The containers of the pod; at least one.');

  // Every kind kubectl can name, both ways: a description and no undescribed field.
  const resources = await kubectl('api-resources', '-o', 'name');
  t.equal(resources.exitCode, 0, resources.stderr);
  const names = resources.stdout.split('\n').filter(Boolean);
  t.ok(names.length >= 15, `kubectl lists the served resources (${names.length})`);
  t.ok(names.includes('podgroups.scheduling.orch.io'), 'PodGroup among them');
  const versions = (await kubectl('api-versions')).stdout.split('\n').filter(Boolean);
  for (const name of names) {
    // A grouped resource whose plural the core group serves too (events and events.events.orch.io):
    // kubectl resolves the dotted name to the core one and reads the rest as a field path, upstream
    // as here, so that one is named by --api-version.
    const dot = name.indexOf('.');
    const plural = name.slice(0, dot);
    const args = dot > 0 && names.includes(plural) ? [plural, `--api-version=${versions.find((v) => v.startsWith(`${name.slice(dot + 1)}/`))}`] : [name];
    for (const output of ['plaintext', 'plaintext-openapiv2']) {
      const r = await kubectl('explain', ...args, `--output=${output}`);
      t.equal(r.exitCode, 0, `explain ${name} (${output}): ${r.stderr}`);
      t.notMatch(r.stdout, /<no description>|<empty>/, `${name} (${output}): every field and the kind described`);
    }
  }
});
