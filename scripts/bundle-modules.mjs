// A plugin's entry points bundled into TiddlyWiki modules, each source file once (used by build.mjs).
//
// TiddlyWiki runs CommonJS modules, and esbuild shares code between bundles (`splitting`) only
// in ES module output; bundled one by one, every entry point carried its own copy of what it
// imports (the change view was in the chat widget and in Ask AI's widget, the reply parser in
// page.js and in the chat widget). So the build runs in two passes:
//   1. esbuild bundles every entry point together, as ES modules with `splitting`: code that
//      several entry points import goes into shared chunks (`chunks/<hash>.js`), one per set of
//      entry points that import it, so a module never carries code its importers do not all
//      need, and code is compiled once however many modules use it;
//   2. each output becomes a CommonJS TiddlyWiki module: its `import`s become `require`s of the
//      chunks' module titles (`$:/plugins/<plugin>/chunks/<hash>.js`, library modules, compiled
//      on first require like any other), and its one `export {…}` clause becomes getters on
//      `exports`, so what a module exports stays live, as an ES module's would.
// Pass 2 adds no `__toCommonJS` wrapper (esbuild's own conversion gives every module ~450 bytes
// of helpers); zod's global declarations are added only to the modules that bundle zod.
import esbuild from 'esbuild';
import path from 'node:path';

// zod assigns two globals on load; TiddlyWiki's module sandbox warns about every global
// assignment, so declare them up front as non-enumerable.
const ZOD_GLOBALS =
  '(function(g){["__zod_globalConfig","__zod_globalRegistry"].forEach(function(k){' +
  'if(!Object.prototype.hasOwnProperty.call(g,k))Object.defineProperty(g,k,{value:undefined,writable:true,configurable:true,enumerable:false});' +
  '});})(globalThis);';

// What a module exports: a getter per name, on the `exports` TiddlyWiki gives the module.
const defineExports = (getters) => `((g)=>{for(var k in g)Object.defineProperty(exports,k,{get:g[k],enumerable:true})})({${getters}});`;

/** The names of an `export {…}` clause's items: [exported, local]. */
function exportItems(clause) {
  return clause
    .split(',')
    .filter((item) => item.trim())
    .map((item) => {
      const m = /^\s*([\w$]+)(?:\s+as(?:\s+([\w$]+)|\s*("[^"\\]*")))?\s*$/.exec(item);
      if (!m) throw new Error(`bundle-modules: cannot read the export item ${JSON.stringify(item)}`);
      const exported = m[2] ?? (m[3] ? JSON.parse(m[3]) : m[1]);
      return [exported, m[1]];
    });
}

/**
 * Bundle `entries` (absolute paths of `.ts` files under `srcDir`) into CommonJS modules.
 * `titleOf(outputPath)` is the module title of an entry point's output (`<outdir>/<rel>.js`).
 * Returns the modules: { path (absolute, under outDir), title, text, entry (the entry point's
 * source, or undefined for a chunk), inputs (source files bundled into it, relative to cwd) }.
 */
export async function bundleModules({ entries, srcDir, outDir, pluginTitle, titleOf, server, dev, external }) {
  // The metafile names files relative to this folder.
  const cwd = process.cwd();
  const first = await esbuild.build({
    entryPoints: entries,
    outdir: outDir,
    outbase: srcDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    chunkNames: 'chunks/[hash]',
    platform: server ? 'node' : 'browser',
    // Pass 2 lowers the syntax; ES2022 here allows string export names (`export {X as 'ai-chat'}`).
    target: 'es2022',
    external,
    // TiddlyWiki runs modules in a sandbox without Node's `global`.
    define: server ? { global: 'globalThis' } : undefined,
    minify: !dev,
    sourcemap: dev ? 'inline' : false,
    legalComments: 'none',
    metafile: true,
    write: false,
    absWorkingDir: cwd,
    logLevel: 'warning',
  });
  const outputs = first.metafile.outputs;
  // Where each output goes and its module title: an entry point's from its .meta; a chunk is
  // named after the source file that makes up most of it (chunks/<file>-<hash>.js).
  const placed = new Map();
  for (const file of first.outputFiles) {
    const meta = outputs[path.relative(cwd, file.path)];
    if (!meta) throw new Error(`bundle-modules: no metafile entry for ${file.path}`);
    let modulePath = file.path;
    if (!meta.entryPoint) {
      const [largest] = Object.entries(meta.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)[0] ?? ['esbuild-runtime'];
      const name = (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(largest)?.[1] ?? path.basename(largest).replace(/\.[^.]*$/, '')).replace(/[^\w-]/g, '-');
      modulePath = path.join(path.dirname(file.path), `${name}-${path.basename(file.path)}`);
    }
    const title = meta.entryPoint ? titleOf(file.path) : `${pluginTitle}/${path.relative(outDir, modulePath).split(path.sep).join('/')}`;
    placed.set(file.path, { meta, modulePath, title });
  }

  return Promise.all(
    first.outputFiles.map(async (file) => {
      const { meta, modulePath, title } = placed.get(file.path);
      let text = file.text;
      // esbuild ends a bundle that exports anything with one `export {…};` clause.
      const clause = /\bexport\s*\{([^{}]*)\};?\s*(\/\/# sourceMappingURL=\S*\s*)?$/.exec(text);
      const items = clause ? exportItems(clause[1]) : [];
      const expected = [...meta.exports].sort();
      const found = items.map(([name]) => name).sort();
      if (JSON.stringify(expected) !== JSON.stringify(found))
        throw new Error(`bundle-modules: ${title}: exports ${JSON.stringify(found)} read, the metafile lists ${JSON.stringify(expected)}`);
      if (clause) {
        const getters = items.map(([exported, local]) => `${JSON.stringify(exported)}:()=>${local}`).join(',');
        text = `${text.slice(0, clause.index)}${defineExports(getters)}\n${clause[2] ?? ''}`;
      }
      const inputs = Object.keys(meta.inputs);
      const second = await esbuild.build({
        stdin: { contents: text, resolveDir: path.dirname(file.path), sourcefile: file.path, loader: 'js' },
        outfile: modulePath,
        bundle: true,
        write: false,
        format: 'cjs',
        platform: server ? 'node' : 'browser',
        target: server ? 'node20' : 'es2020',
        minify: !dev,
        sourcemap: dev ? 'inline' : false,
        legalComments: 'none',
        banner: inputs.some((input) => /node_modules\/zod\//.test(input)) ? { js: ZOD_GLOBALS } : undefined,
        logLevel: 'warning',
        // `exports` is the module's own, which TiddlyWiki passes to it. PDF.js (pdf.js) reads
        // import.meta.url only to load optional Node packages, inside try/catch.
        logOverride: { 'commonjs-variable-in-esm': 'silent', 'empty-import-meta': 'silent' },
        plugins: [
          {
            name: 'tiddlywiki-modules',
            setup(build) {
              // Another output of this build by its title; the rest (TiddlyWiki's and Node's modules) as it is.
              build.onResolve({ filter: /.*/ }, (args) => {
                if (!args.path.startsWith('.')) return { path: args.path, external: true };
                const target = placed.get(path.resolve(args.resolveDir, args.path))?.title;
                if (!target) throw new Error(`bundle-modules: ${title} imports ${args.path}, which is no output of this build`);
                // Relative to the requiring module's title, as TiddlyWiki resolves `./` and `../`.
                const relative = path.posix.relative(path.posix.dirname(title), target);
                return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
              });
            },
          },
        ],
      });
      return { path: modulePath, title, text: second.outputFiles[0].text, entry: !!meta.entryPoint, inputs };
    }),
  );
}
