// `npm run library`: serves the plugin library (dist/library/, made by `npm run build`) on
// loopback, so a wiki on this computer can open it under Control Panel → Plugins → Get more
// plugins; the plugin files (dist/*.json) are served beside it for drag and drop. Any static web
// server does as well (the folder is plain files); this one needs nothing beyond Node.js.
// A request path is decoded once, as static servers do, so the plugin files' encoded names
// (recipes/library/tiddlers/%24%3A%2F….json) are found; nothing outside the folder is served.
// Flags: --port (default 8081, LIBRARY_PORT; 0 picks a free one), --host (default 127.0.0.1).
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.json': 'application/json; charset=utf-8' };

/** Serve `dir` (default dist/library, with dist/*.json under /plugins/); resolves once listening. */
function serveLibrary({ dir = path.join(ROOT, 'dist', 'library'), plugins = path.join(ROOT, 'dist'), port = 8081, host = '127.0.0.1' } = {}) {
  const server = http.createServer((request, response) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(request.url, 'http://library').pathname);
    } catch {
      pathname = '';
    }
    const [base, rel] = pathname.startsWith('/plugins/')
      ? [plugins, pathname.slice('/plugins/'.length)]
      : [dir, pathname === '/' ? 'index.html' : pathname.slice(1)];
    const file = path.resolve(base, rel);
    const inside = file.startsWith(path.resolve(base) + path.sep) && !(base === plugins && path.dirname(file) !== path.resolve(plugins));
    if (request.method !== 'GET' || !inside || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(request.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain; charset=utf-8' });
      return response.end('Not found');
    }
    response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}`;
      resolve({ url, libraryUrl: `${url}/index.html`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

module.exports = { serveLibrary };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const flag = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (!fs.existsSync(path.join(ROOT, 'dist', 'library', 'index.html'))) {
    console.error('No plugin library yet: run `npm run build` first.');
    process.exit(1);
  }
  serveLibrary({ port: Number(flag('--port') ?? process.env.LIBRARY_PORT ?? 8081), host: flag('--host') ?? '127.0.0.1' }).then(
    (library) => {
      console.log(`TiddlyAgent plugin library: ${library.libraryUrl}`);
      console.log(
        `  Open that page and drag its box into your wiki, or in your wiki make a tiddler tagged $:/tags/PluginLibrary with the field url: ${library.libraryUrl}`,
      );
      console.log(`  Then Control Panel → Plugins → Get more plugins → TiddlyAgent → Open plugin library.`);
      console.log(`  The plugin files themselves, to drag into a wiki: ${library.url}/plugins/agent.json (and mcp-browser.json, pdf.json)`);
      const stop = () => library.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (e) => {
      console.error(`the plugin library could not be served: ${e.message}`);
      process.exit(1);
    },
  );
}
