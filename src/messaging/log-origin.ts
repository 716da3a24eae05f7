/** Where a logged message came from: a bulk job's row, or nothing (a single or batch send). */
export interface LogOrigin {
  bulkJobId?: string;
  rowIndex?: number;
  /** Not logged: handed to the provider (the sandbox's immediate receipts of a test bulk job). */
  instantReceipts?: boolean;
}
