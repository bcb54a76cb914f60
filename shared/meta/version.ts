import manifest from '../../package.json' with { type: 'json' };

/** The platform's version, from package.json (bundled into each Lambda at build time). */
export const platformVersion: string = manifest.version;
