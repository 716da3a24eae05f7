import { Global, Module } from '@nestjs/common';
import { RECEIPT_INTAKE } from '../../providers/provider-events';
import { ReceiptIntakeService } from './receipt-intake.service';
import { ReceiptsRepository } from './receipts.repository';
import { ReceiptSweeper } from './receipt-sweeper';
import { StatusTrail } from './status-trail';

/**
 * The message lifecycle: status history and events (StatusTrail), provider ids of sent messages and
 * kept receipts (ReceiptsRepository), and the one receipt writer. Global, so providers and features (SMPP,
 * Cloud API and WAHA hooks, the sandbox) inject RECEIPT_INTAKE without importing messaging.
 */
@Global()
@Module({
  providers: [
    StatusTrail,
    ReceiptsRepository,
    ReceiptIntakeService,
    ReceiptSweeper,
    { provide: RECEIPT_INTAKE, useExisting: ReceiptIntakeService },
  ],
  exports: [StatusTrail, ReceiptsRepository, ReceiptIntakeService, RECEIPT_INTAKE],
})
export class LifecycleModule {}
