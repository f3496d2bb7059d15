declare const __INFERENCECACHE_VERSION__: string | undefined;
declare const __INFERENCECACHE_COMMIT__: string | undefined;

/** The release version, set by the bundler; `dev` when run from source. */
export const VERSION: string = typeof __INFERENCECACHE_VERSION__ === 'string' ? __INFERENCECACHE_VERSION__ : 'dev';
/** The git commit the bundle was built from, set by the bundler. */
export const COMMIT: string = typeof __INFERENCECACHE_COMMIT__ === 'string' ? __INFERENCECACHE_COMMIT__ : 'unknown';
/** Where the project lives: the home of its documentation, named by reports that link to it (SARIF's `informationUri`). */
export const PROJECT_URL = 'https://github.com/inference-cache/inferencecache-doctor';
