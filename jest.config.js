/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: '<rootDir>/test/harness/quietEnvironment.js',
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
	},
	testTimeout: 60_000,
};
