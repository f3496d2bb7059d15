// The floors of `npm run bench:scale`: bare programs that make the doctor's list calls (the same
// collections, cluster-wide, in pages of 500, all at once) and nothing else.
//   node scripts/bench/floor.mjs json <server> <ca-file> <token-file> <collection path>...
//   node scripts/bench/floor.mjs protobuf <server> <ca-file> <token-file> <collection path>...
// `json` asks for JSON and parses every page. `protobuf` asks for the API server's protobuf encoding
// wherever it has one (every built-in Kind; a custom resource is answered in JSON and parsed) and
// decodes nothing of a page but its continue token: it walks the list's fields by their lengths and
// counts the items. The collections' paths are given: the bench derives them from the doctor's run plan.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [mode, server, caFile, tokenFile, ...COLLECTIONS] = process.argv.slice(2);
if ((mode !== 'json' && mode !== 'protobuf') || COLLECTIONS.length === 0)
  throw new Error('usage: floor.mjs json|protobuf <server> <ca-file> <token-file> <collection path>...');
const token = readFileSync(tokenFile, 'utf8').trim();
const dispatcher = new Agent({ connect: { ca: readFileSync(caFile) } });
const accept = mode === 'json' ? 'application/json' : 'application/vnd.kubernetes.protobuf, application/json';

/** A varint at `at`: its value (up to 2^53) and where it ends. */
function varint(bytes, at) {
  let value = 0;
  for (let shift = 1; at < bytes.length; shift *= 128) {
    const b = bytes[at++];
    value += (b & 127) * shift;
    if (b < 128) return [value, at];
  }
  throw new Error('a varint runs past the page');
}

/** Each field of the message in `bytes[start, end)`: calls `visit(field, valueStart, valueEnd)` for length-delimited ones. */
function fields(bytes, start, end, visit) {
  let at = start;
  while (at < end) {
    const [key, next] = varint(bytes, at);
    const wire = key % 8;
    at = next;
    if (wire === 2) {
      const [length, from] = varint(bytes, at);
      if (from + length > end) throw new Error('a field runs past its message');
      visit(Math.floor(key / 8), from, from + length);
      at = from + length;
    } else if (wire === 0) at = varint(bytes, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`wire type ${wire} in a list`);
  }
}

/** A protobuf list page (`k8s\0`, the runtime.Unknown envelope, the list in its `raw`): its item count and continue token. */
function protobufPage(bytes) {
  if (bytes[0] !== 0x6b || bytes[1] !== 0x38 || bytes[2] !== 0x73 || bytes[3] !== 0) throw new Error('no protobuf envelope');
  let items = 0;
  let next = '';
  fields(bytes, 4, bytes.length, (field, start, end) => {
    if (field !== 2) return; // Unknown.raw: the list
    fields(bytes, start, end, (listField, from, to) => {
      if (listField === 2)
        items++; // items
      else if (listField === 1)
        fields(bytes, from, to, (metaField, s, e) => {
          if (metaField === 3) next = Buffer.from(bytes.buffer, bytes.byteOffset + s, e - s).toString('utf8'); // ListMeta.continue
        });
    });
  });
  return { items, next };
}

let objects = 0;
async function list(path) {
  let next = '';
  do {
    const query = new URLSearchParams({ limit: '500', ...(next === '' ? {} : { continue: next }) });
    const res = await request(`${server}${path}?${query}`, {
      dispatcher,
      headers: { authorization: `Bearer ${token}`, accept },
    });
    if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
    if (String(res.headers['content-type']).startsWith('application/vnd.kubernetes.protobuf')) {
      const page = protobufPage(new Uint8Array(await res.body.arrayBuffer()));
      objects += page.items;
      next = page.next;
    } else {
      const page = JSON.parse(await res.body.text());
      objects += page.items.length;
      next = page.metadata?.continue ?? '';
    }
  } while (next !== '');
}

await Promise.all(COLLECTIONS.map(list));
await dispatcher.close();
process.stdout.write(`${objects} objects\n`);
