export declare const SCRIPT_FILE: string;
export declare const MODULE_FILE: string;
/** The self-contained script: an IIFE that defines <tollgate-upgrade-cancel>. */
export declare function bundleScript(): Promise<string>;
/** The ESM build: imports lit from the page's dependencies. */
export declare function bundleModule(): Promise<string>;
