// The floor of `npm run bench:scale`: a bare program that makes the doctor's list calls (the same
// collections, cluster-wide, in pages of 500, all at once) and parses every page, and nothing else.
//   node scripts/bench/floor.mjs <server> <ca-file> <token-file>
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [server, caFile, tokenFile] = process.argv.slice(2);
const token = readFileSync(tokenFile, 'utf8').trim();
const dispatcher = new Agent({ connect: { ca: readFileSync(caFile) } });
const COLLECTIONS = [
  '/apis/inferencecache.io/v1alpha1/cachebackends',
  '/api/v1/pods',
  '/api/v1/events',
  '/apis/inferencecache.io/v1alpha1/cachetenants',
  '/apis/inferencecache.io/v1alpha1/cachepolicies',
  '/api/v1/nodes',
  '/api/v1/serviceaccounts',
  '/api/v1/namespaces',
];

let objects = 0;
async function list(path) {
  let token_ = '';
  do {
    const query = new URLSearchParams({ limit: '500', ...(token_ === '' ? {} : { continue: token_ }) });
    const res = await request(`${server}${path}?${query}`, {
      dispatcher,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    const page = JSON.parse(await res.body.text());
    if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
    objects += page.items.length;
    token_ = page.metadata?.continue ?? '';
  } while (token_ !== '');
}

await Promise.all(COLLECTIONS.map(list));
await dispatcher.close();
process.stdout.write(`${objects} objects\n`);
