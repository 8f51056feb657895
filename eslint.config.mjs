// The configuration n8n's community package scanner (@n8n/scan-community-package) lints with: the recommended
// rules of @n8n/eslint-plugin-community-nodes, no-console, and the community, credentials and nodes rule sets of
// eslint-plugin-n8n-nodes-base with the scanner's own exceptions. Inline `eslint-disable` comments are ignored
// (`noInlineConfig`), as the scanner runs with `allowInlineConfig: false`.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

export default [
	{
		ignores: [
			'node_modules/**',
			'test/**',
			'scripts/**',
			'**/package-lock.json',
			'gulpfile.js',
			'jest.config.js',
		],
	},
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } },
	n8nCommunityNodesPlugin.configs.recommended,
	{ rules: { 'no-console': 'error' } },
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
	{
		files: ['**/credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['**/nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{ files: ['**/*.json', '**/*.ts'], languageOptions: { parser: tsParser } },
];
