import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { CursorCodec } from './cursor';
import { SecretBox } from './secret-box';

@Global()
@Module({
  providers: [Clock, CursorCodec, SecretBox],
  exports: [Clock, CursorCodec, SecretBox],
})
export class CommonModule {}
