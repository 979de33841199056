export interface TestClockTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string | null;
  /** The clock's time (epoch ms); only ever moves forward. */
  frozenTime: number;
  /** ready or advancing. */
  status: string;
  advanceStartedAt: number | null;
  createdAt: number;
  updatedAt: number;
}
