export interface StorefrontTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  /** JSON array of offering ids: what the next publish will show. */
  draftOfferingIds: string;
  /** JSON array of offering ids as last published; null until the first publish. */
  publishedOfferingIds: string | null;
  /** 0 until published; +1 on every publish (part of the configuration's etag). */
  publishedVersion: number;
  publishedAt: number | null;
  /** JSON StorefrontDisplay (calls to action, highlighted offerings, theme) of the draft. */
  draftDisplay: string;
  /** JSON StorefrontDisplay as last published; null until then (and for rows older than it). */
  publishedDisplay: string | null;
  createdAt: number;
  updatedAt: number;
}
