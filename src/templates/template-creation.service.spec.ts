import 'reflect-metadata';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { loadConfig } from '../config/app-config';
import { buildDataSourceOptions } from '../database/data-source-options';
import { SqliteGate } from '../database/sqlite-gate';
import { UnitOfWork } from '../database/unit-of-work';
import { SystemDnsResolver } from '../common/net/dns-resolver';
import { GuardedFetcher } from '../common/net/guarded-fetcher';
import { TargetPolicy } from '../common/net/target-policy';
import { CreateTemplateDto } from './dto/create-template.dto';
import { OfficialSenderEntity } from './entities/official-sender.entity';
import { TemplateMediaEntity } from './entities/template-media.entity';
import { TemplateEntity } from './entities/template.entity';
import { MediaIngest } from './media/media-ingest';
import { MediaStorage } from './media/media-storage';
import { TemplateMediaService } from './media/template-media.service';
import { OfficialSendersService } from './official/official-senders.service';
import { ManualLinkVerifier } from './official/manual-link.verifier';
import { SandboxOfficialTemplateEntity } from './official/sandbox-official-template.entity';
import { SandboxTemplateClient } from './official/sandbox-template.client';
import { TemplateCreationService } from './template-creation.service';
import { TemplateViewMapper } from './template-view.mapper';
import { accountIdOf } from '../common/account-id';

/** Storage that refuses every file (disk full, object store down). */
class FailingStorage extends MediaStorage {
  put(): Promise<void> {
    return Promise.reject(new Error('disk full'));
  }
  open(): Promise<null> {
    return Promise.resolve(null);
  }
  delete(): Promise<void> {
    return Promise.resolve();
  }
}

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

describe(TemplateCreationService.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tpl-create-'));
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    NODE_ENV: 'test',
    MEDIA_DIR: dir,
    WEBHOOK_ALLOW_INSECURE: 'true',
  });
  let ds: DataSource;
  let files: Server;
  let filesUrl: string;
  let sut: TemplateCreationService;

  beforeAll(async () => {
    ds = new DataSource({
      ...buildDataSourceOptions(config),
      entities: [TemplateEntity, TemplateMediaEntity, OfficialSenderEntity, SandboxOfficialTemplateEntity],
    });
    await ds.initialize();
    SqliteGate.install(ds);
    files = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(JPEG));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const clock = new Clock();
    const fetcher = new GuardedFetcher(new TargetPolicy(config, new SystemDnsResolver()));
    const media = new TemplateMediaService(
      ds.getRepository(TemplateMediaEntity),
      new FailingStorage(),
      new MediaIngest(config),
      config,
      clock,
      fetcher,
    );
    const senders = new OfficialSendersService(
      ds.getRepository(OfficialSenderEntity),
      config,
      clock,
      new UnitOfWork(ds),
    );
    const official = new SandboxTemplateClient(ds.getRepository(SandboxOfficialTemplateEntity), clock);
    const links = new ManualLinkVerifier(official);
    sut = new TemplateCreationService(
      ds.getRepository(TemplateEntity),
      media,
      senders,
      official,
      links,
      new TemplateViewMapper(config, senders),
      config,
      clock,
    );
  });
  afterAll(async () => {
    files.closeAllConnections();
    await new Promise((r) => files.close(r));
    await ds.destroy();
  });

  it('a file fetched from headerMediaUrl is removed from the incoming area when storing it fails', async () => {
    const dto = Object.assign(new CreateTemplateDto(), {
      name: 'from_url',
      category: 'chatapp',
      subType: 'utility',
      language: 'en',
      body: 'Hello',
      headerMediaUrl: `${filesUrl}/logo.jpg`,
    });
    await expect(sut.create(accountIdOf('acc_1'), dto, null)).rejects.toThrow('disk full');
    expect(readdirSync(join(dir, '.incoming'))).toEqual([]);
    expect(await ds.getRepository(TemplateEntity).count()).toBe(0);
  });
});
