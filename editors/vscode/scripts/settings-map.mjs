// The settings map, from src/settingsMap.ts (the one source), into
//   - settings-map.json (compared with the server's Settings by tests/unit/test_vscode_settings.py)
//   - package.json `contributes.configuration`
//   - the settings table in README.md (between the settings:start / settings:end markers).
// `--write` writes them; `--check` (the build runs it) fails when one is out of date.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv.includes('--write') ? 'write' : 'check';

const bundled = await esbuild.build({
  entryPoints: [join(root, 'src/settingsMap.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false,
  logLevel: 'warning',
});
const module = { exports: {} };
new Function('module', 'exports', 'require', bundled.outputFiles[0].text)(
  module,
  module.exports,
  createRequire(import.meta.url),
);
const map = module.exports;

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
const mapPath = join(root, 'settings-map.json');
const packagePath = join(root, 'package.json');
const wantMap = json(map.settingsMapDocument());
const pkg = JSON.parse(readFileSync(packagePath, 'utf8'));
pkg.contributes = { ...pkg.contributes, configuration: map.contributedConfiguration() };
const wantPackage = json(pkg);
const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const table = /(<!-- settings:start[^\n]*-->\n)[\s\S]*?(<!-- settings:end -->)/;
if (!table.test(readme)) {
  console.error('README.md lacks the <!-- settings:start … --> / <!-- settings:end --> markers.');
  process.exit(1);
}
const wantReadme = readme.replace(table, (_m, start, end) => `${start}${map.settingsTable()}\n${end}`);

const stale = [];
if (readFileSync(mapPath, { encoding: 'utf8', flag: 'a+' }) !== wantMap) stale.push('settings-map.json');
if (readFileSync(packagePath, 'utf8') !== wantPackage) stale.push('package.json (contributes.configuration)');
if (readme !== wantReadme) stale.push('README.md (settings table)');

if (mode === 'write') {
  writeFileSync(mapPath, wantMap);
  writeFileSync(packagePath, wantPackage);
  writeFileSync(readmePath, wantReadme);
  console.log(stale.length ? `updated: ${stale.join(', ')}` : 'settings map up to date');
} else if (stale.length) {
  console.error(`Out of date with src/settingsMap.ts: ${stale.join(', ')}. Run \`npm run settings-map\`.`);
  process.exit(1);
} else {
  console.log('settings map up to date');
}
