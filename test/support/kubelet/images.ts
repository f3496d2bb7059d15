/**
 * Images without a container runtime: the stand-in is told which local program each image stands
 * for (its ENTRYPOINT and CMD), and builds the process's argv from the container the way a runtime
 * does: `command` replaces ENTRYPOINT, `args` replaces CMD, and `$(VAR)` references expand from the
 * container's environment.
 *
 * @module
 */

import * as path from 'node:path';
import { IMAGE_NODE_FLAGS } from '../../../scripts/bundle/node-flags.ts';
import type { Container } from './types.ts';

/** What an image runs, as its image config would say. */
export interface ImageCommand {
  readonly entrypoint: readonly string[];
  readonly cmd?: readonly string[];
  /** The image's ENV; container env wins over it. */
  readonly env?: Readonly<Record<string, string>>;
  /** The image's USER (numeric); absent means root, which `runAsNonRoot` refuses. */
  readonly user?: number;
}

/**
 * Image patterns to what they run. A key matches an image reference when it equals, as a glob where
 * `*` matches anything, either the whole reference or its repository (the reference without tag or
 * digest): `*inferencecache-doctor` matches `example/inferencecache-doctor:test`. A bare array is an
 * ENTRYPOINT with no CMD. The first matching key, in insertion order, wins.
 */
export type ImageMap = Readonly<Record<string, readonly string[] | ImageCommand>>;

/** The image map entry that runs the doctor bundle with this Node and the image's Node flags, as the distroless image would (uid 65532). */
export function doctorImage(projectRoot: string): ImageCommand {
  return { entrypoint: [process.execPath, ...IMAGE_NODE_FLAGS, path.join(projectRoot, 'dist/inferencecache.mjs')], user: 65532 };
}

/** The repository part of an image reference (no `:tag`, no `@digest`). */
export function imageRepository(image: string): string {
  const noDigest = image.split('@')[0] ?? image;
  const lastSlash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > lastSlash ? noDigest.slice(0, colon) : noDigest;
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** The command an image stands for, or undefined when the map has no entry for it. */
export function resolveImage(images: ImageMap, image: string): ImageCommand | undefined {
  const repo = imageRepository(image);
  for (const [pattern, entry] of Object.entries(images)) {
    const re = globToRegExp(pattern);
    if (re.test(image) || re.test(repo)) return Array.isArray(entry) ? { entrypoint: entry as readonly string[] } : (entry as ImageCommand);
  }
  return undefined;
}

/**
 * Expands `$(VAR)` from `env` as the kubelet does: `$$` is an escaped `$`, an undefined or malformed
 * reference is left as written.
 */
export function expandVars(input: string, env: Readonly<Record<string, string>>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      const name = close < 0 ? undefined : input.slice(i + 2, close);
      const value = name === undefined ? undefined : env[name];
      if (close < 0 || value === undefined) {
        out += close < 0 ? input.slice(i) : input.slice(i, close + 1);
        i = close < 0 ? input.length : close;
      } else {
        out += value;
        i = close;
      }
    } else {
      out += ch;
    }
  }
  return out;
}

/** The process argv for `container` on `image`: `command` replaces ENTRYPOINT, `args` replaces CMD. */
export function containerArgv(container: Container, image: ImageCommand, env: Readonly<Record<string, string>>): string[] {
  const expand = (list: readonly string[]): string[] => list.map((s) => expandVars(s, env));
  if (container.command !== undefined && container.command.length > 0) {
    return [...expand(container.command), ...expand(container.args ?? [])];
  }
  const cmd = container.args !== undefined && container.args.length > 0 ? expand(container.args) : [...(image.cmd ?? [])];
  return [...image.entrypoint, ...cmd];
}
