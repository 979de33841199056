export declare const ASSET_BASE: string;
export interface ConsoleAsset {
  /** console.<16 hex digits of the SHA-256>.js or .css */
  name: string;
  contentType: string;
  contents: Buffer;
}
export interface ConsoleBundle {
  /** index.html, naming the assets under ASSET_BASE. */
  index: string;
  assets: ConsoleAsset[];
}
/** The console's page and its hashed script and stylesheet, minified. */
export declare function bundleConsole(): Promise<ConsoleBundle>;
export declare function renderIndex(script: string, stylesheet: string): string;
