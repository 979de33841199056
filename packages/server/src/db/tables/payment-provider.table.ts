export interface PaymentProviderTable {
  id: string;
  workspaceId: string;
  environment: string;
  /** 'stripe' */
  provider: string;
  /** The provider's secret API key, sealed (AES-256-GCM) and bound to the row's id. */
  secretKeyCiphertext: string;
  secretKeyKeyId: string;
  /** The key's last four characters, to tell keys apart on screen. */
  secretKeyHint: string;
  /** The provider's webhook signing secret, sealed the same way; null until it is given. */
  webhookSecretCiphertext: string | null;
  webhookSecretKeyId: string | null;
  webhookSecretHint: string | null;
  createdAt: number;
  updatedAt: number;
}
