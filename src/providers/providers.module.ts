import { Global, Module } from '@nestjs/common';
import { ProvidersRegistry } from './providers.registry';
import { SandboxProvider } from './sandbox/sandbox.provider';
import { SandboxReceipts } from './sandbox/sandbox-receipts';
import { SandboxDeliveriesEraser } from './sandbox/sandbox-deliveries-eraser.repository';
import { SandboxPurgeRepository } from './sandbox/sandbox-purge.repository';
import { BotApiProvider } from './bot-api/bot-api.provider';
import { CloudApiProvider } from './cloud-api/cloud-api.provider';
import { SmppDeliveries } from './smpp/smpp-deliveries';
import { SmppProvider } from './smpp/smpp.provider';
import { SmtpProvider } from './smtp/smtp.provider';

/**
 * Channel providers. The registry is global so adapter classes living in feature modules (e.g. the
 * WAHA web-session adapter in chatapp-web) can register too. Adapters under src/providers/ are
 * listed in `providers` here and register in their onModuleInit.
 */
@Global()
@Module({
  providers: [
    ProvidersRegistry,
    SandboxProvider,
    SandboxReceipts,
    SandboxDeliveriesEraser,
    SandboxPurgeRepository,
    SmtpProvider,
    SmppProvider,
    SmppDeliveries,
    CloudApiProvider,
    BotApiProvider,
  ],
  // SandboxProvider: its store takes the faults of the operator's and the test-mode controls.
  exports: [ProvidersRegistry, SandboxProvider],
})
export class ProvidersModule {}
