const { rmSync } = require('fs');
const { dest, src } = require('gulp');

/** A build starts from an empty dist/, so that nothing stale is packed. */
async function clean() {
	rmSync('dist', { recursive: true, force: true });
}

/** tsc compiles the code; n8n also needs the icons and the codex files (*.node.json) beside it in dist/. */
function copyAssets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.clean = clean;
exports['build:icons'] = copyAssets;
