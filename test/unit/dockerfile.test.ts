// The image cannot be built here (no Docker engine), so the Dockerfile is checked statically: the
// runtime base, what it copies, who it runs as and how it starts. Each rule is also shown to catch a
// Dockerfile that breaks it.
import { readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../scripts/bundle/node-flags.ts';
import { BUNDLE, BUNDLE_DIR } from '../../dev/bundle.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';

/** One instruction: keyword upper-cased, the rest of the (joined) line. */
interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly image: string;
  readonly name: string;
  readonly instructions: readonly Instruction[];
}

/** Splits a Dockerfile into stages; comments and parser directives dropped, continuations joined. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  const stages: { image: string; name: string; instructions: Instruction[] }[] = [];
  // ARGs before the first FROM are the only ones a FROM may use: their defaults stand in for them.
  const globalArgs = new Map<string, string>();
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = args.split('=', 2);
      globalArgs.set(name, value);
    } else if (keyword.toUpperCase() === 'FROM') {
      const expanded = args.replace(
        /\$\{(\w+)\}|\$(\w+)/g,
        (_, a: string | undefined, b: string | undefined) => globalArgs.get(a ?? b ?? '') ?? '',
      );
      const [image = '', as, name] = expanded.split(/\s+/).filter((w) => !w.startsWith('--'));
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? (name ?? '') : '', instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** `--flag=value` options of an instruction, and its remaining words. */
function splitFlags(args: string): { flags: Map<string, string>; words: string[] } {
  const flags = new Map<string, string>();
  const words: string[] = [];
  for (const word of args.split(/\s+/)) {
    const flag = /^--([a-z-]+)=(.*)$/.exec(word);
    if (flag?.[1] !== undefined) flags.set(flag[1], flag[2] ?? '');
    else if (word !== '') words.push(word);
  }
  return { flags, words };
}

/** The exec-form (JSON array) arguments of an instruction, or undefined for the shell form. */
function execForm(args: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(args);
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The bundle's entry as a path relative to the project root: what `npm run build` writes. */
const BUNDLE_PATH = relative(PROJECT_ROOT, BUNDLE);
/** The bundle's folder relative to the project root: the entry and its chunks, all the image needs. */
const BUNDLE_DIR_PATH = relative(PROJECT_ROOT, BUNDLE_DIR);
/** Where the image holds the bundle's folder. */
const IMAGE_BUNDLE_DIR = '/app';
const RUNTIME_BASE = /^gcr\.io\/distroless\/nodejs24-debian13:nonroot@sha256:[0-9a-f]{64}$/;
const NONROOT = '65532';

/** Every rule the Dockerfile breaks, in words (empty when it keeps them all). */
function dockerfileProblems(text: string): string[] {
  const problems: string[] = [];
  const stages = parseDockerfile(text);
  const runtime = stages.at(-1);
  const build = stages[0];
  if (runtime === undefined || build === undefined || stages.length < 2) return ['not multi-stage'];

  if (!/^(docker\.io\/library\/)?node:24(\b|[-.@])/.test(build.image))
    problems.push(`build stage is not on a Node 24 image: ${build.image}`);
  if (!/@sha256:[0-9a-f]{64}$/.test(build.image)) problems.push(`build stage image is not pinned by digest: ${build.image}`);
  for (const arg of ['BUILD_IMAGE', 'RUNTIME_IMAGE']) {
    if (!new RegExp(`^ARG ${arg}=`, 'm').test(text)) problems.push(`no build arg ${arg} with today's image as its default`);
  }
  if (!build.instructions.some((i) => i.keyword === 'RUN' && /\bnpm ci\b.*--ignore-scripts/.test(i.args))) {
    problems.push('npm ci runs install scripts (the node devDependency would fetch a second Node)');
  }
  const runs = build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  if (!runs.some((r) => /\bnpm ci\b/.test(r))) problems.push('build stage does not run npm ci');
  if (!runs.some((r) => /\bnpm run build\b/.test(r))) problems.push('build stage does not run npm run build');
  const commitArg = build.instructions.some((i) => i.keyword === 'ARG' && /^COMMIT(=|$)/.test(i.args));
  if (!commitArg || !runs.some((r) => /INFERENCECACHE_COMMIT="?\$\{?COMMIT\}?"?\s+npm run build\b/.test(r))) {
    problems.push('build stage does not pass the COMMIT build arg to npm run build (the context has no .git)');
  }
  const buildDir = build.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args ?? '/';

  if (!RUNTIME_BASE.test(runtime.image)) problems.push(`runtime base is not distroless Node 24 nonroot pinned by digest: ${runtime.image}`);
  // The runtime copies one folder of the build stage into /: the top layer, laid out there with the
  // bundle's folder at IMAGE_BUNDLE_DIR and its modes set, which a COPY without --chmod keeps.
  const copies = runtime.instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
  const copy = copies[0];
  if (copies.length !== 1 || copy === undefined) {
    problems.push(`runtime stage copies ${copies.length} things, want only the bundle's layer`);
  } else {
    const { flags, words } = splitFlags(copy.args);
    const [source = '', dest] = words;
    if (copy.keyword !== 'COPY') problems.push('the bundle is added with ADD, not COPY');
    if (flags.get('from') !== build.name || build.name === '')
      problems.push(`the bundle is not copied from the build stage (--from=${flags.get('from') ?? ''})`);
    if (flags.get('chown') !== '0:0') problems.push(`the bundle is not copied root-owned (--chown=${flags.get('chown') ?? ''})`);
    if (flags.has('chmod'))
      problems.push('the bundle is copied with --chmod, which BuildKit also gives the folders (the build stage sets the modes)');
    if (words.length !== 2 || !source.endsWith('/') || dest !== '/')
      problems.push(`copies ${words.slice(0, -1).join(' ')} to ${dest ?? ''}, want one folder's contents to /`);
    const layer = posix.join(source, '.');
    const bundleDir = [BUNDLE_DIR_PATH, join(buildDir, BUNDLE_DIR_PATH)].map((d) => d.replaceAll('.', '\\.')).join('|');
    if (!runs.some((r) => new RegExp(`\\bcp -R (${bundleDir})/? ${layer}${IMAGE_BUNDLE_DIR}(\\s|$)`).test(r)))
      problems.push(
        `build stage does not lay out ${layer}${IMAGE_BUNDLE_DIR} from ${BUNDLE_DIR_PATH}, the folder scripts/build.mjs writes`,
      );
    if (!runs.some((r) => new RegExp(`\\bchmod -R a=rX ${layer}(\\s|$)`).test(r)))
      problems.push(`build stage does not set the modes of ${layer} (chmod -R a=rX: files 0444, folders 0555)`);
    const entry = posix.join(IMAGE_BUNDLE_DIR, relative(BUNDLE_DIR, BUNDLE));
    const entrypoint = execForm(runtime.instructions.filter((i) => i.keyword === 'ENTRYPOINT').at(-1)?.args ?? '');
    if (entrypoint === undefined) problems.push('ENTRYPOINT is missing or not in exec form');
    else if (JSON.stringify(entrypoint) !== JSON.stringify(['/nodejs/bin/node', ...IMAGE_NODE_FLAGS, entry])) {
      problems.push(
        `ENTRYPOINT ${JSON.stringify(entrypoint)} does not run the bundle's entry ${entry} with /nodejs/bin/node and the flags of scripts/bundle/node-flags.ts`,
      );
    }
  }
  const labels = runtime.instructions
    .filter((i) => i.keyword === 'LABEL')
    .map((i) => i.args)
    .join(' ');
  for (const [label, value] of [
    ['source', /^https:\/\/github\.com\/\S+$/],
    ['revision', /^\$\{COMMIT\}$/],
    ['version', /^\$\{VERSION\}$/],
    ['licenses', /^Apache-2\.0$/],
  ] as const) {
    const found = new RegExp(`org\\.opencontainers\\.image\\.${label}="([^"]*)"`).exec(labels)?.[1];
    if (found === undefined || !value.test(found)) problems.push(`label org.opencontainers.image.${label} is ${JSON.stringify(found)}`);
  }
  const env = runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => i.args);
  const wantEnv = Object.entries(IMAGE_ENV).map(([name, value]) => `${name}=${value}`);
  if (JSON.stringify(env) !== JSON.stringify(wantEnv))
    problems.push(`runtime ENV ${JSON.stringify(env)} is not the environment of scripts/bundle/node-flags.ts ${JSON.stringify(wantEnv)}`);
  const user = runtime.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args ?? '';
  if (user !== `${NONROOT}:${NONROOT}`) problems.push(`runtime user is ${JSON.stringify(user)}, want ${NONROOT}:${NONROOT}`);
  if (runtime.instructions.some((i) => i.keyword === 'RUN')) problems.push('runtime stage has RUN (distroless has no shell)');
  return problems;
}

const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');

describe('Dockerfile', () => {
  it('keeps every rule', () => {
    expect(dockerfileProblems(dockerfile)).toEqual([]);
  });

  it('copies the very folder scripts/build.mjs writes, and runs its entry', () => {
    const outfile = /const outfile = `\$\{root\}([^`]+)`/.exec(readFileSync(join(PROJECT_ROOT, 'scripts/build.mjs'), 'utf8'))?.[1];
    expect(outfile).toBe(BUNDLE_PATH);
    expect(BUNDLE_PATH).toBe('dist/inferencecache.mjs');
    expect(dirname(BUNDLE_PATH)).toBe(BUNDLE_DIR_PATH);
  });

  it('copies into the build stage every project file the build script imports, directly or not', () => {
    const [build] = parseDockerfile(dockerfile);
    const copied = (build?.instructions ?? []).filter((i) => i.keyword === 'COPY').flatMap((i) => splitFlags(i.args).words.slice(0, -1));
    const imported = new Set<string>();
    const visit = (file: string): void => {
      for (const m of readFileSync(join(PROJECT_ROOT, file), 'utf8').matchAll(/^import\s[^;]*?from\s*'(\.{1,2}\/[^']+)';$/gm)) {
        const target = posix.join(posix.dirname(file), m[1] ?? '');
        if (imported.has(target)) continue;
        imported.add(target);
        visit(target);
      }
    };
    visit('scripts/build.mjs');
    expect([...imported]).toContain('dev/package.ts');
    const missing = [...imported].filter((f) => !copied.some((c) => c === f || (c.endsWith('/') && f.startsWith(c))));
    expect(missing).toEqual([]);
  });

  const mutations: { name: string; edit: (text: string) => string; problem: RegExp }[] = [
    { name: 'no ENV', edit: (t) => t.replace(/^ENV MALLOC_ARENA_MAX=1\n/m, ''), problem: /runtime ENV \[\] is not the environment/ },
    {
      name: 'another arena count',
      edit: (t) => t.replace('ENV MALLOC_ARENA_MAX=1', 'ENV MALLOC_ARENA_MAX=4'),
      problem: /runtime ENV \["MALLOC_ARENA_MAX=4"\]/,
    },
    {
      name: 'a tag instead of a digest',
      edit: (t) => t.replace(/:nonroot@sha256:[0-9a-f]{64}/, ':nonroot'),
      problem: /not distroless Node 24 nonroot pinned by digest/,
    },
    { name: 'a short digest', edit: (t) => t.replace(/(@sha256:[0-9a-f]{12})[0-9a-f]{52}/, '$1'), problem: /pinned by digest/ },
    {
      name: 'the debian12 base',
      edit: (t) => t.replace(/^(ARG RUNTIME_IMAGE=\S*)nodejs24-debian13/m, '$1nodejs24-debian12'),
      problem: /not distroless Node 24/,
    },
    { name: 'the root variant', edit: (t) => t.replace('debian13:nonroot@', 'debian13:latest@'), problem: /nonroot pinned/ },
    {
      name: 'a Node 22 build stage',
      edit: (t) => t.replace(/^ARG BUILD_IMAGE=node:24-/m, 'ARG BUILD_IMAGE=node:22-'),
      problem: /not on a Node 24 image/,
    },
    {
      name: 'a build image by tag',
      edit: (t) => t.replace(/(ARG BUILD_IMAGE=\S+)@sha256:[0-9a-f]{64}/, '$1'),
      problem: /build stage image is not pinned/,
    },
    {
      name: 'no RUNTIME_IMAGE build arg',
      edit: (t) => t.replace(/^ARG RUNTIME_IMAGE=(\S+)$/m, '').replace('FROM ${RUNTIME_IMAGE}', 'FROM $1'),
      problem: /no build arg RUNTIME_IMAGE/,
    },
    { name: 'install scripts run', edit: (t) => t.replace(' --ignore-scripts', ''), problem: /runs install scripts/ },
    {
      name: 'no revision label',
      edit: (t) => t.replace(/org\.opencontainers\.image\.revision="\$\{COMMIT\}"/, 'x="y"'),
      problem: /image\.revision is undefined/,
    },
    {
      name: 'a fixed version label',
      edit: (t) => t.replace('image.version="${VERSION}"', 'image.version="1.0"'),
      problem: /image\.version is "1\.0"/,
    },
    { name: 'no npm run build', edit: (t) => t.replace(/npm run build/g, 'npm run typecheck'), problem: /does not run npm run build/ },
    {
      name: 'the commit not passed to the build',
      edit: (t) => t.replace(/INFERENCECACHE_COMMIT="\$\{COMMIT\}" /, ''),
      problem: /does not pass the COMMIT build arg/,
    },
    {
      name: 'another file copied',
      edit: (t) => t.replace(/^USER /m, 'COPY --from=build /build/package.json /package.json\nUSER '),
      problem: /copies 2 things/,
    },
    {
      name: 'node_modules copied too',
      edit: (t) => t.replace('/layer/ /', '/layer/ /build/node_modules /'),
      problem: /copies \/layer\/ \/build\/node_modules to \//,
    },
    {
      name: 'a folder of its own in place of the layer',
      edit: (t) => t.replace('/layer/ /', '/layer/app/ /app/'),
      problem: /want one folder's contents to \//,
    },
    {
      name: 'a different bundle folder',
      edit: (t) => t.replace('cp -R dist /layer/app', 'cp -R out /layer/app'),
      problem: /does not lay out \/layer\/app from dist/,
    },
    {
      name: 'the bundle somewhere the entrypoint does not look',
      edit: (t) => t.replace('cp -R dist /layer/app', 'cp -R dist /layer/opt'),
      problem: /does not lay out \/layer\/app/,
    },
    {
      name: 'no modes set in the build stage',
      edit: (t) => t.replace(' && chmod -R a=rX /layer', ''),
      problem: /does not set the modes of \/layer/,
    },
    {
      name: 'writable files',
      edit: (t) => t.replace('chmod -R a=rX /layer', 'chmod -R a=rwX /layer'),
      problem: /does not set the modes of \/layer/,
    },
    {
      name: '--chmod, which BuildKit gives the folders too',
      edit: (t) => t.replace('--chown=0:0 /layer/', '--chown=0:0 --chmod=0444 /layer/'),
      problem: /copied with --chmod/,
    },
    { name: 'not root-owned', edit: (t) => t.replace('--chown=0:0 ', ''), problem: /not copied root-owned/ },
    { name: 'copied from the build context', edit: (t) => t.replace('--from=build ', ''), problem: /not copied from the build stage/ },
    { name: 'root user', edit: (t) => t.replace('USER 65532:65532', 'USER root'), problem: /runtime user is "root"/ },
    { name: 'no USER', edit: (t) => t.replace(/^USER .*$/m, ''), problem: /runtime user is ""/ },
    {
      name: 'a named user (runAsNonRoot cannot verify it)',
      edit: (t) => t.replace('USER 65532:65532', 'USER nonroot'),
      problem: /runtime user is "nonroot"/,
    },
    {
      name: 'shell-form entrypoint',
      edit: (t) => t.replace(/^ENTRYPOINT .*$/m, 'ENTRYPOINT /nodejs/bin/node /app/inferencecache.mjs'),
      problem: /not in exec form/,
    },
    {
      name: 'an entrypoint that misses the bundle',
      edit: (t) => t.replace('"/app/inferencecache.mjs"]', '"/app/chunks/main.mjs"]'),
      problem: /does not run the bundle's entry \/app\/inferencecache\.mjs/,
    },
    {
      name: 'an entrypoint without the Node flags',
      edit: (t) => t.replace(/"--max-semi-space-size=\d+", /, ''),
      problem: /with \/nodejs\/bin\/node and the flags/,
    },
    {
      name: 'a RUN in the runtime stage',
      edit: (t) => t.replace(/^USER /m, 'RUN chmod 0555 /app/inferencecache.mjs\nUSER '),
      problem: /has RUN/,
    },
    { name: 'a single stage', edit: (t) => t.slice(t.indexOf('FROM gcr.io')), problem: /not multi-stage/ },
  ];
  it.each(mutations)('would catch $name', ({ edit, problem }) => {
    const broken = edit(dockerfile);
    expect(broken).not.toBe(dockerfile);
    expect(dockerfileProblems(broken)).toContainEqual(expect.stringMatching(problem));
  });
});

describe('.dockerignore', () => {
  const patterns = readFileSync(join(PROJECT_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('ignores everything but the build inputs', () => {
    expect(patterns[0]).toBe('*');
    expect(patterns.slice(1).every((p) => p.startsWith('!'))).toBe(true);
    expect(patterns).toEqual(
      expect.arrayContaining(['!package.json', '!package-lock.json', '!scripts/build.mjs', '!dev/package.ts', '!src/']),
    );
  });

  it('lets in every file the build stage copies, and nothing it does not', () => {
    const [build] = parseDockerfile(dockerfile);
    const copied = (build?.instructions ?? []).filter((i) => i.keyword === 'COPY').flatMap((i) => splitFlags(i.args).words.slice(0, -1));
    const allowed = new Set(patterns.slice(1).map((p) => p.slice(1)));
    expect(new Set(copied)).toEqual(allowed);
  });
});
