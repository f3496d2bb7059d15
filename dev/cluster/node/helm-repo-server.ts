// A Helm repository over HTTP on loopback: serves the files of one folder (index.yaml and the packaged
// charts) by name, nothing else. Run as its own process by argocd.ts:
//   node helm-repo-server.ts <folder> <port>
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';

const [folder = '', port = ''] = process.argv.slice(2);
if (folder === '' || !/^\d+$/.test(port)) {
  console.error('usage: helm-repo-server.ts <folder> <port>');
  process.exit(2);
}

createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url ?? '/', 'http://repo').pathname.slice(1));
  const file = join(folder, basename(name));
  const isFile = name === basename(name) && statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  console.log(`${req.method ?? '?'} /${name} ${isFile ? 200 : 404}`);
  if (!isFile || (req.method !== 'GET' && req.method !== 'HEAD')) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': name.endsWith('.yaml') ? 'application/yaml' : 'application/gzip' });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
}).listen(Number(port), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
