import { ApiProperty } from '@nestjs/swagger';
import type { DndImportResult, DndStateView } from '../dnd-import.service';

export class DndList implements DndStateView {
  @ApiProperty({ type: 'integer', description: 'Distinct numbers on the list in force (0 before the first import).' })
  numbers: number;

  @ApiProperty({ type: 'integer', description: 'The import in force (0 before the first one).', example: 3 })
  generation: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the list in force was applied; null before the first import.',
  })
  importedAt: string | null;
}

export class DndImport implements DndImportResult {
  @ApiProperty({ type: 'integer', description: 'Distinct numbers on the new list (duplicates counted once).' })
  numbers: number;

  @ApiProperty({ type: 'integer', description: 'Lines that were not a valid phone number (the header is not one).' })
  invalid: number;

  @ApiProperty({ type: 'integer', isArray: true, description: 'The first ten invalid lines (1-based line numbers).' })
  invalidLines: number[];

  @ApiProperty({ type: 'integer', description: 'The import now in force.' })
  generation: number;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the new list was applied.' })
  importedAt: string;

  @ApiProperty({ type: 'integer', description: 'How long the import took, body streaming included (ms).' })
  durationMs: number;
}

export const DND_IMPORT_EXAMPLE: DndImportResult = {
  numbers: 1_000_000,
  invalid: 2,
  invalidLines: [17, 90211],
  generation: 3,
  importedAt: '2030-01-15T10:00:00.000Z',
  durationMs: 21_400,
};

export const DND_LIST_EXAMPLE: DndStateView = {
  numbers: 1_000_000,
  generation: 3,
  importedAt: '2030-01-15T10:00:00.000Z',
};
