import { Injectable } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { symbols, type Logger as PinoInstance } from 'pino';

/**
 * Nest's own start-up chatter: one line per module and one per route (~100 lines that scrolled the
 * demo key away). Logged at debug, so `LOG_LEVEL=debug` still shows the route map.
 */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** nestjs-pino's Logger, with Nest's start-up chatter moved from info to debug. */
@Injectable()
export class AppLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context)) return super.debug(message, ...optionalParams);
    return super.log(message, ...optionalParams);
  }

  /** The pino logger itself (the request log writes through it, in the same stream). */
  get pino(): PinoInstance {
    return this.logger.logger;
  }

  /**
   * Plain text for a person (the start-up banner), after every log line written so far. pino writes
   * stdout asynchronously and Nest hands it the buffered start-up logs only at listen, so a
   * console.log would land among them; through the logger's own stream the text queues behind them.
   */
  printAfterLogs(text: string): void {
    const stream = (this.pino as unknown as Record<symbol, { write?: (s: string) => unknown } | undefined>)[
      symbols.streamSym
    ];
    if (typeof stream?.write === 'function') stream.write(text);
    else process.stdout.write(text);
  }
}
