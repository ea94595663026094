// Bundles the audit page (ui/) into dist/ui: index.html, app.js (the page and uPlot) and
// app.css (its styles and uPlot's). The daemon serves these files and nothing else, so the
// page works offline: no CDN, no font from outside.
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

mkdirSync('dist/ui', { recursive: true });
await build({
  entryPoints: { app: 'ui/src/main.ts' },
  outdir: 'dist/ui',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox113', 'safari16.4'],
  minify: true,
  legalComments: 'eof',
  // uPlot's notice, which its source keeps in a comment esbuild does not carry over.
  banner: { js: '/*! uPlot, (c) Leon Sorokin, MIT License: https://github.com/leeoniya/uPlot */' },
  logLevel: 'warning',
});
copyFileSync('ui/index.html', 'dist/ui/index.html');
