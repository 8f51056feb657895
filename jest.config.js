/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: '<rootDir>/test/harness/quietEnvironment.js',
	// Only *.test.ts are tests: the rigs beside them (test/lib/, test/<suite>/run.js and its helpers) are not.
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
	},
	testTimeout: 60_000,
};
