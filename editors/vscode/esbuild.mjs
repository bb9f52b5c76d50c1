// Bundles the extension (Node, CommonJS) and the run view's webview script (browser, IIFE) into dist/.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';

const common = { bundle: true, minify: false, sourcemap: false, logLevel: 'warning', target: 'es2022' };

mkdirSync('dist', { recursive: true });
await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  }),
  esbuild.build({
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
  }),
]);
copyFileSync('media/webview.css', 'dist/webview.css');
