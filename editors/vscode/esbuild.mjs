// Bundles the extension (Node, CommonJS) and the chat view's webview script (browser, IIFE) into
// dist/, with the offline demo (the daemon's sample project and its model script).
import * as esbuild from 'esbuild';
import { copyFileSync, cpSync, mkdirSync, rmSync } from 'node:fs';

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
rmSync('dist/demo', { recursive: true, force: true });
cpSync('../../server/harness9/demo/sample', 'dist/demo/sample', {
  recursive: true,
  filter: (src) => !src.includes('__pycache__'),
});
copyFileSync('../../server/harness9/demo/replay.json', 'dist/demo/replay.json');
