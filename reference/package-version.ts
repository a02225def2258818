// The version of this package (package.json), which is the reference's binary version.
import { existsSync, readFileSync } from 'node:fs';

function read(): string {
  // From dist/reference/ (or dist/bin/) the package root is two folders up.
  const pkg = new URL('../../package.json', import.meta.url);
  return existsSync(pkg) ? JSON.parse(readFileSync(pkg, 'utf8')).version : '0.0.0';
}

export const PACKAGE_VERSION: string = read();
