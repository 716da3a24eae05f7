// The baseline of bench:api: a bare NestJS app with one GET route returning small JSON. Imported by
// api-server.ts (in-process mode); run on its own (`--built` mode) it listens on a free port and
// sends the port to its parent.
import 'reflect-metadata';
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';

@Controller()
class BareController {
  @Get('bare')
  bare(): { success: true; data: { ok: true } } {
    return { success: true, data: { ok: true } };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

export async function startBareApp(): Promise<{ app: INestApplication; port: number }> {
  const app = await NestFactory.create(BareModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, port: (app.getHttpServer().address() as AddressInfo).port };
}

if (require.main === module) {
  process.on('SIGINT', () => process.exit(0));
  startBareApp()
    .then(({ port }) => process.send?.({ barePort: port }))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
