/**
 * The facts the development tools take from package.json, so that none of them is written twice.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface PackageJson {
  readonly version: string;
  readonly engines: { readonly node: string };
}

const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as PackageJson;

/** The project's version (the tag of the images `npm run image` builds) and its minimum Node major. */
export const PACKAGE = {
  version: raw.version,
  nodeMajor: minimumNodeMajor(raw.engines.node),
} as const;

/** The major of an `engines.node` range such as `>=24`. */
export function minimumNodeMajor(range: string): number {
  const major = Number.parseInt(/\d+/.exec(range)?.[0] ?? '', 10);
  if (!Number.isInteger(major)) throw new Error(`package.json engines.node ${JSON.stringify(range)} names no Node major`);
  return major;
}
