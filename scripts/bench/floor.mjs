// The floor of `npm run bench:scale`: a bare program that makes the doctor's list calls (the same
// collections, cluster-wide, in pages of 500, all at once) and parses every page, and nothing else.
// The collections' paths are given: the bench derives them from the doctor's run plan.
//   node scripts/bench/floor.mjs <server> <ca-file> <token-file> <collection path>...
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [server, caFile, tokenFile, ...COLLECTIONS] = process.argv.slice(2);
if (COLLECTIONS.length === 0) throw new Error('usage: floor.mjs <server> <ca-file> <token-file> <collection path>...');
const token = readFileSync(tokenFile, 'utf8').trim();
const dispatcher = new Agent({ connect: { ca: readFileSync(caFile) } });

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
