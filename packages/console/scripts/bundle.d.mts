export declare const ASSET_BASE: string;
export declare const HUB_ASSET_BASE: string;
export interface ConsoleAsset {
  /** console.<16 hex digits of the SHA-256>.js or .css (hub.<…> for the hub) */
  name: string;
  contentType: string;
  contents: Buffer;
}
export interface ConsoleBundle {
  /** index.html, naming the assets under ASSET_BASE (HUB_ASSET_BASE). */
  index: string;
  assets: ConsoleAsset[];
}
/** The console's page and its hashed script and stylesheet, minified. */
export declare function bundleConsole(): Promise<ConsoleBundle>;
/** The developer hub's page and its hashed script and stylesheet, minified. */
export declare function bundleHub(): Promise<ConsoleBundle>;
export declare function renderIndex(script: string, stylesheet: string, app?: { name: string; base: string; title: string; what: string }): string;
