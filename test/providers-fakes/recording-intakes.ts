import { Clock } from '../../src/common/clock';
import { AppConfig } from '../../src/config/app-config';
import type { InboundSms, InboundSmsIntake, ProviderReceipt, ReceiptIntake } from '../../src/providers/provider-events';
import { SmppDeliveries } from '../../src/providers/smpp/smpp-deliveries';

/** RECEIPT_INTAKE and INBOUND_SMS_INTAKE for adapter tests (no app): records what they are given; `failing` makes them throw. */
export class RecordingIntakes implements ReceiptIntake {
  readonly receipts: ProviderReceipt[] = [];
  readonly inboundSms: InboundSms[] = [];
  failing = false;

  readonly inbound: InboundSmsIntake = {
    accept: async (sms) => {
      if (this.failing) throw new Error('store unavailable');
      this.inboundSms.push(sms);
    },
  };

  async accept(receipts: readonly ProviderReceipt[]): Promise<void> {
    if (this.failing) throw new Error('store unavailable');
    this.receipts.push(...receipts);
  }
}

/** The SMPP adapter's deliver_sm handler over recording intakes. */
export function smppDeliveries(config: AppConfig, intakes = new RecordingIntakes()): SmppDeliveries {
  return new SmppDeliveries(intakes, intakes.inbound, new Clock(), config);
}
