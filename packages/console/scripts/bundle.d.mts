export declare const ASSET_BASE: string;
export declare const HUB_ASSET_BASE: string;
export interface ConsoleAsset {
  /**
   * esbuild's name with its content hash: console.<hash>.js|css (hub.<…> for the hub) for the entry
   * and the stylesheet, chunk.<hash>.js for a lazy screen's or shared code's chunk.
   */
  name: string;
  contentType: string;
  contents: Buffer;
}
export interface ConsoleBundle {
  /** index.html, naming the entry, its static chunks (modulepreload) and the stylesheet under ASSET_BASE (HUB_ASSET_BASE). */
  index: string;
  /** Every file: the entry, every chunk, the stylesheet. */
  assets: ConsoleAsset[];
  /** The entry script's name. */
  entry: string;
  /** The stylesheet's name. */
  stylesheet: string;
  /** What the first screen loads: the entry and the chunks it imports statically (transitively), entry first. */
  initialScripts: string[];
}
/** The console's page and its hashed scripts and stylesheet, minified. */
export declare function bundleConsole(): Promise<ConsoleBundle>;
/** The developer hub's page and its hashed scripts and stylesheet, minified. */
export declare function bundleHub(): Promise<ConsoleBundle>;
export declare function renderIndex(
  script: string,
  stylesheet: string,
  app?: { name: string; base: string; title: string; what: string },
  preload?: string[],
): string;
