// What a production process loads: the built server (apps/api/build.mjs, as `npm start` and the
// Docker image run it) started with the settings production requires, which refuse every
// sandbox. None of the stand-ins of packages/sandbox, nor what only they need (an SMTP server, a
// mail parser, a certificate maker and the `reflect-metadata` that patches the global Reflect),
// may be loaded there. A development start of the same build loads them all: the recording sees
// what it is asked about.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { INLINED_PACKAGES } from '../inlined-packages.mjs';
import { testDatabaseKinds } from './support/test-databases';
import { childProcessPath } from './support/test-env';

const API_DIR = fileURLToPath(new URL('..', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));
const RECORDER = new URL('./support/record-loaded-modules.mjs', import.meta.url);

/** The npm packages only a sandbox needs. */
const SANDBOX_ONLY_PACKAGES = ['smtp-server', 'mailparser', 'reflect-metadata', '@peculiar/x509'];
const SANDBOX_SOURCES = ['smtp-inbox', 'stripe-sandbox', 'identity-sandbox', 'app-store-sandbox'];
/**
 * The npm packages an idle production server does not need, loaded with the first call that
 * does: each weighs megabytes of heap that a server waiting for requests would carry for nothing.
 */
const LOADED_ON_FIRST_USE = [
  '@apple/app-store-server-library',
  'nodemailer',
  'stripe',
  '@zxcvbn-ts/language-common',
  'openid-client',
];
/**
 * Fastify's own validator and serializer builders, which the server never uses (zod validates and
 * serializes every route): given zod's builders at its start (app.ts), Fastify does not load these.
 */
const FASTIFY_DEFAULT_COMPILERS = [
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'ajv',
  'ajv-formats',
];

let scratch: string;
let buildDir: string;

beforeAll(() => {
  // A build of its own, beside a link to node_modules so its npm imports resolve as in dist/:
  // apps/api/dist may be serving someone meanwhile.
  scratch = mkdtempSync(path.join(tmpdir(), 'kegel-api-build-'));
  symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(scratch, 'node_modules'));
  buildDir = path.join(scratch, 'apps/api/dist');
  mkdirSync(buildDir, { recursive: true });
  const build = spawnSync(process.execPath, ['build.mjs', '--outdir', buildDir], {
    cwd: API_DIR,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`the API build failed:\n${build.stderr}`);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function listenOnLoopback(server: Server = createServer()): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listenOnLoopback(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts the built server with `env`, waits until /api/health answers, stops it with SIGTERM and
 * returns the URLs of every module it loaded on the way.
 */
async function modulesLoadedBy(env: Record<string, string>): Promise<string[]> {
  // The port was free when asked for, but another test may take it before the server binds it
  // (CI failed so once, with every suite running at once): then again, on another port.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await modulesLoadedOnce(env);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('is already in use')) throw error;
    }
  }
}

async function modulesLoadedOnce(env: Record<string, string>): Promise<string[]> {
  const record = path.join(scratch, `loaded-${randomBytes(4).toString('hex')}.txt`);
  const port = await freePort();
  const recorder = new URL(RECORDER);
  recorder.searchParams.set('to', record);
  const child = spawn(
    process.execPath,
    ['--import', recorder.href, path.join(buildDir, 'main.js')],
    {
      env: {
        PATH: childProcessPath,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        // Stopped at once: no balancer to drain for.
        SHUTDOWN_DRAIN_SECONDS: '0',
        ...env,
      },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited early:\n${output}`);
    const answered = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (Date.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer in 60 s:\n${output}`);
    }
    await sleep(100);
  }
  child.kill('SIGTERM');
  await exited;
  if (!existsSync(record)) throw new Error(`nothing was recorded:\n${output}`);
  return [...new Set(readFileSync(record, 'utf8').split('\n').filter(Boolean))];
}

/** The packages of `names` among `urls`. */
function packagesIn(urls: string[], names: string[]): string[] {
  return names.filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));
}

/** The sandbox-only npm packages among `urls`, by name. */
function sandboxPackagesIn(urls: string[]): string[] {
  return packagesIn(urls, SANDBOX_ONLY_PACKAGES);
}

/**
 * The sandbox sources bundled into the files of the build among `urls`, by name: each file's
 * source map lists the sources it was made of, however the build splits or names its files.
 */
function sandboxSourcesIn(urls: string[]): string[] {
  const sources = buildSourcesIn(urls);
  return SANDBOX_SOURCES.filter((name) =>
    sources.some((source) => source.endsWith(`packages/sandbox/src/${name}.ts`)),
  );
}

/** The build's own .js files among the URLs of loaded modules. */
function buildFilesIn(urls: string[]): string[] {
  const buildUrl = new URL(`file://${buildDir}/`).href;
  return urls.filter((url) => url.startsWith(buildUrl) && url.endsWith('.js'));
}

/** The sources the build's files among `urls` were made of, read from their source maps. */
function buildSourcesIn(urls: string[]): string[] {
  return buildFilesIn(urls).flatMap((url) => {
    const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as {
      sources: string[];
    };
    return map.sources;
  });
}

/**
 * The files of the build among `urls` that hold a character beyond Latin-1, each with its first
 * such line. V8 keeps the source of every script it loaded for as long as the process runs, in
 * one byte a character, or in two for the whole file as soon as one character needs it: a '…' in
 * a comment esbuild kept doubled the 270 KB of main.js in the heap.
 */
function filesBeyondLatin1(urls: string[]): string[] {
  return buildFilesIn(urls).flatMap((url) => {
    const line = readFileSync(fileURLToPath(url), 'utf8')
      .split('\n')
      .find((text) => [...text].some((character) => character.charCodeAt(0) > 0xff));
    return line === undefined ? [] : [`${path.basename(url)}: ${line.trim()}`];
  });
}

// Which modules load does not depend on the database: the start tests run on PGlite only.
describe('the modules a built server loads', () => {
  it('come from packages the API names as dependencies, those its inlined packages import too', () => {
    const dependencies = Object.keys(
      (
        JSON.parse(readFileSync(path.join(API_DIR, 'package.json'), 'utf8')) as {
          dependencies: Record<string, string>;
        }
      ).dependencies,
    );
    const imported = new Set(
      readdirSync(buildDir)
        .filter((file) => file.endsWith('.js'))
        .flatMap((file) =>
          [
            ...readFileSync(path.join(buildDir, file), 'utf8').matchAll(
              /(?:^import[^;]*?from\s*|^import\s*|\bimport\()"([^".][^"]*)"/gms,
            ),
          ].map(([, specifier]) => specifier!),
        )
        .filter((specifier) => !isBuiltin(specifier))
        .map((specifier) =>
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    );
    // The check sees the imports: the server imports Fastify.
    expect(imported).toContain('fastify');
    expect([...imported].filter((name) => !dependencies.includes(name))).toEqual([]);
  });

  it('in production: no sandbox, nor what only a sandbox or a first call needs', async () => {
    const database = await testDatabaseKinds[0]!.create();
    // Where production mail goes: a mail server on loopback that nobody writes to at start.
    const mailServer = createServer((socket) => socket.destroy());
    const smtpPort = await listenOnLoopback(mailServer);
    try {
      const loaded = await modulesLoadedBy({
        ...database.env,
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://kegel-coach.example',
        TOKEN_SECRET: randomBytes(48).toString('base64'),
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        STRIPE_SECRET_KEY: `sk_test_${randomBytes(12).toString('hex')}`,
        STRIPE_API_URL: 'https://127.0.0.1:1',
        STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      });
      // The server itself was recorded, so the recording worked.
      expect(loaded).toContain(new URL(`file://${buildDir}/main.js`).href);
      expect({
        packages: sandboxPackagesIn(loaded),
        sources: sandboxSourcesIn(loaded),
        loadedOnFirstUse: packagesIn(loaded, LOADED_ON_FIRST_USE),
        fastifyDefaultCompilers: packagesIn(loaded, FASTIFY_DEFAULT_COMPILERS),
        beyondLatin1: filesBeyondLatin1(loaded),
        // build.mjs bundles these: none comes from node_modules, where a second copy of zod
        // would not know the first's schemas, and of zod's languages only English is kept.
        inlinedFromNodeModules: packagesIn(loaded, [...INLINED_PACKAGES]),
        zodLanguages: buildSourcesIn(loaded)
          .filter((source) => source.includes('/node_modules/zod/v4/locales/'))
          .map((source) => path.basename(source)),
      }).toEqual({
        packages: [],
        sources: [],
        loadedOnFirstUse: [],
        fastifyDefaultCompilers: [],
        beyondLatin1: [],
        inlinedFromNodeModules: [],
        zodLanguages: ['en.js'],
      });
    } finally {
      mailServer.close();
      await database.drop();
    }
  }, 120_000);

  it('in development: every sandbox, with what it needs', async () => {
    const database = await testDatabaseKinds[0]!.create();
    try {
      const loaded = await modulesLoadedBy({ ...database.env, NODE_ENV: 'development' });
      expect({
        packages: sandboxPackagesIn(loaded),
        sources: sandboxSourcesIn(loaded),
      }).toEqual({ packages: SANDBOX_ONLY_PACKAGES, sources: SANDBOX_SOURCES });
    } finally {
      await database.drop();
    }
  }, 120_000);
});
