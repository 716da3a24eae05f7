import { Global, Module } from '@nestjs/common';

/**
 * The fraud guard (issue 31): geo permissions (the destination countries an account may send to)
 * and verification pumping detection. Messaging and verification reach it only through the ports
 * they declare, so this module is global and exports those tokens.
 */
@Global()
@Module({})
export class FraudModule {}
