// The layers' direction, as the README's layout states it: the CRI definitions (cri/) are neutral, the
// mock CRI is a backend nothing of the reference depends on. A static check over the sources' imports.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) out.push(...sources(rel));
    else if (name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** Project-relative targets of a file's relative imports, static and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  return found.map((spec) => relative(root, resolve(join(root, dirname(file)), spec)));
}

function violations(dirs: string[], forbidden: string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    for (const file of sources(dir)) {
      for (const target of importsOf(file)) {
        if (forbidden.some((f) => target === f || target.startsWith(`${f}/`))) out.push(`${file} imports ${target}`);
      }
    }
  }
  return out;
}

t.test('cri/ imports neither the mock nor the reference', async (t) => {
  t.ok(sources('cri').length > 0, 'cri/ has sources');
  t.same(violations(['cri'], ['mocks', 'reference', 'suites', 'runner']), []);
});

t.test('the reference and the suites do not depend on the mock CRI', async (t) => {
  t.same(violations(['reference', 'suites'], ['mocks']), []);
});

t.test('hollow/ sits above the reference and the mock: nothing below it imports it', async (t) => {
  t.ok(sources('hollow').length > 0, 'hollow/ has sources');
  t.same(violations(['reference', 'mocks', 'suites', 'cri'], ['hollow']), []);
  // And below the runner and the CLI, which start it.
  t.same(violations(['hollow'], ['runner', 'bin', 'suites', 'reporters']), []);
});
