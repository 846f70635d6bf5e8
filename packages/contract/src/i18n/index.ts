// What both halves read about languages. The catalogs themselves are in ./catalogs (the server's
// and the tests'); the web app's build compiles them page by page.
export * from './backslashes';
export * from './locales';
export * from './pseudo';
export * from './plan-names';
