// npm packages build.mjs bundles into the server rather than leaving as imports from node_modules:
// plain ES modules with no files of their own to read, of which the server uses a part. Bundled,
// esbuild keeps only that part and makes one module of hundreds: kysely ships 279 files, and
// importing zod loads its 40 languages. An idle production process held 8 MB less (90.4 → 81.9 MB
// beside a bare Fastify + pg + ioredis server's 64.1, with jose among them then;
// scripts/bench/production-memory.mjs, issue 30). None may be imported by a package left outside: that one would load a second copy
// from node_modules, and two copies of zod would not know each other's schemas. So zod goes with
// fastify-type-provider-zod, and jose stays out (openid-client, loaded on a first Google sign-in,
// imports it). production-modules.test.ts holds a production start to loading none of them from
// node_modules.
export const INLINED_PACKAGES = [
  'zod',
  'fastify-type-provider-zod',
  'kysely',
  'otpauth',
  'bowser',
  '@lingui/core',
  '@lingui/message-utils',
];

/** Whether an import (`zod/mini`, `kysely`) names one of them. */
export function isInlined(specifier) {
  return INLINED_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}
