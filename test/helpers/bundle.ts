// Runs the test files of one directory in this one process, instead of a process each. tap starts every
// test file as a node process with its own module hooks and imports (about 1.5 s of CPU before the
// first assertion, on a two-core CI machine a minute and more over a hundred small files); the files
// of test/reference, test/mocks, test/client, test/agent, test/controllers and test/workflows, and the short top-level
// files package.json's tap.exclude lists, run as a few bundles instead
// (package.json's tap.exclude keeps tap from starting them again on their own). Each file still runs
// alone as before: `npx tap dist/test/reference/table.test.js`.
//
// A bundle takes every `share`-th file (by name) from `index`, so that a directory splits over several
// bundles that tap runs side by side, and new files join a bundle without a list to keep.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The test files under `dir` (recursively), sorted. */
function testFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

/**
 * Imports the files of `dirs` (URLs of directories beside this bundle's) whose position is `index`
 * modulo `share`, one after another: their `t.test` calls queue on this process's root test.
 */
export async function runBundle(dirs: readonly URL[], index: number, share: number): Promise<void> {
  const files = dirs.flatMap((d) => testFiles(fileURLToPath(d)));
  if (files.length === 0) throw new Error(`no test files under ${dirs.map((d) => fileURLToPath(d)).join(', ')}`);
  for (const [i, file] of files.entries()) {
    if (i % share === index) await import(pathToFileURL(file).href);
  }
}

/**
 * The short top-level test files: those package.json's tap.exclude names one by one (tap does not start
 * them on their own), every `share`-th from `index`, imported one after another.
 */
export async function runListedBundle(index: number, share: number): Promise<void> {
  const root = new URL('../../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { tap: { exclude: string[] } };
  const files = pkg.tap.exclude.filter((e) => /^dist\/test\/[^/*]+\.test\.js$/.test(e)).sort();
  if (files.length === 0) throw new Error('package.json tap.exclude names no test file');
  for (const [i, file] of files.entries()) {
    if (i % share === index) await import(new URL(file, root).href);
  }
}
