// Bundle the extension (and vscode-languageclient) into dist/extension.js with esbuild.
// `--production`: minified, no source map (what the .vsix ships). `--outfile=PATH`: elsewhere
// (the tests load a bundle built this way).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const outfile = process.argv.find((a) => a.startsWith('--outfile='))?.slice('--outfile='.length) ?? 'dist/extension.js';

await esbuild.build({
  entryPoints: ['src/extension.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  legalComments: production ? 'none' : 'inline',
  logLevel: 'warning',
});
console.log(`${outfile} built${production ? ' (production)' : ''}`);
