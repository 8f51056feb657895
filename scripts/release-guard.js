#!/usr/bin/env node
'use strict';
/*
 * prepublishOnly: refuses to publish from anywhere but the GitHub Actions workflow .github/workflows/publish.yml.
 * n8n verifies only community packages published from GitHub Actions with npm provenance (since May 2026); a package
 * published from a laptop would never be verified. (package.json is also "private": the workflow lifts that flag
 * just before publishing, because this repository's .npmrc skips npm's lifecycle scripts, this one included.)
 */
const inActions = process.env.GITHUB_ACTIONS === 'true';
const withProvenance = process.env.npm_config_provenance === 'true';
if (!inActions || !withProvenance) {
	console.error(
		[
			'Not published: this package is published only by the GitHub Actions workflow "Publish" (.github/workflows/publish.yml),',
			'with npm provenance, which n8n requires to verify a community package.',
			'To release: update CHANGELOG.md, run `npm version <patch|minor|major>`, then `git push --follow-tags`.',
		].join('\n'),
	);
	process.exit(1);
}
