import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { INBOUND_SMS_INTAKE, RECEIPT_INTAKE, type InboundSmsIntake, type ReceiptIntake } from '../provider-events';
import { canonicalSubmitId, parseDeliverSm, type DeliverSmFields, type SmppDelivery } from './smpp-receipts';

/** deliver_sm_resp command_status values we answer. */
export const DELIVER_SM_STATUS = {
  ok: 0x00,
  /** ESME_RX_T_APPN: we could not store it now; the SMSC delivers it again later. */
  retryLater: 0x64,
  /** ESME_RX_P_APPN: unreadable, sending it again will not help. */
  refused: 0x65,
} as const;

/**
 * Turns the SMSC's deliver_sm into receipts (RECEIPT_INTAKE) and inbound SMS (INBOUND_SMS_INTAKE),
 * and says which deliver_sm_resp status to answer: OK only once the intake stored it, so a
 * receipt or SMS is never acknowledged and then lost.
 */
@Injectable()
export class SmppDeliveries {
  private readonly logger = new Logger('SmppDeliveries');

  constructor(
    @Inject(RECEIPT_INTAKE) private readonly receipts: ReceiptIntake,
    @Inject(INBOUND_SMS_INTAKE) private readonly inbound: InboundSmsIntake,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** The provider message id to store for a submit_sm_resp id (see SMPP_RECEIPT_ID_FORMAT). */
  storedId(submitRespId: string): string {
    return canonicalSubmitId(submitRespId, this.config.smpp?.receiptIdFormat ?? 'as_submitted');
  }

  /** Handles one deliver_sm; resolves to the deliver_sm_resp command_status (never rejects). */
  async handle(pdu: DeliverSmFields): Promise<number> {
    let delivery: SmppDelivery;
    try {
      delivery = parseDeliverSm(pdu, this.clock.now(), this.config.smpp?.receiptIdFormat ?? 'as_submitted');
    } catch (err) {
      delivery = { kind: 'invalid', reason: (err as Error).message };
    }
    try {
      switch (delivery.kind) {
        case 'receipt':
          await this.receipts.accept([delivery.receipt]);
          return DELIVER_SM_STATUS.ok;
        case 'inbound':
          await this.inbound.accept(delivery.sms);
          return DELIVER_SM_STATUS.ok;
        case 'ignored':
          this.logger.debug(`deliver_sm ignored: ${delivery.reason}`);
          return DELIVER_SM_STATUS.ok;
        case 'invalid':
          this.logger.warn(`deliver_sm refused: ${delivery.reason}`);
          return DELIVER_SM_STATUS.refused;
      }
    } catch (err) {
      this.logger.error(`deliver_sm not stored (${delivery.kind}), the SMSC will retry: ${(err as Error).message}`);
      return DELIVER_SM_STATUS.retryLater;
    }
  }
}
