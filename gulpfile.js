const { dest, src } = require('gulp');

/** tsc compiles the code; n8n also needs the icons and the codex file (*.node.json) beside it in dist/. */
function copyAssets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:icons'] = copyAssets;
