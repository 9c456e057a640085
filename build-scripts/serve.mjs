// serve.mjs: a minimal static file server for dist/ (Node's http module; no dependencies).
// Usage: node build-scripts/serve.mjs [--dir dist] [--port 8080] [--host 127.0.0.1]
// Also imported by the end-to-end test: startServer({dir, port: 0}) -> {url, close()}.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.md': 'text/markdown; charset=utf-8',
};

export function startServer({ dir, port = 8080, host = '127.0.0.1' }) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    let rel;
    try { rel = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { rel = null; }
    if (rel === null) { res.writeHead(400).end('bad request'); return; }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, '.' + rel);
    if (file !== root && !file.startsWith(root + path.sep)) { res.writeHead(403).end('forbidden'); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
                           'Cache-Control': 'no-cache' });
      res.end(data);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ url: `http://${host}:${actual}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
  const port = Number(opt('--port', process.env.PORT || 8080));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: --port must be an integer 0..65535, got ${opt('--port', process.env.PORT)}`);
    process.exit(2);
  }
  const dir = opt('--dir', 'dist');
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    console.error(`serve: ${dir}/index.html not found; run build-scripts/build-web.sh first`);
    process.exit(1);
  }
  startServer({ dir, port, host: opt('--host', '127.0.0.1') })
    .then(({ url }) => console.log(`hwplan is served at ${url}  (Ctrl+C stops it)`))
    .catch((e) => { console.error(`serve: cannot listen on port ${port}: ${e.message}`); process.exit(1); });
}
