import Papa from 'papaparse';
import type { Schemas } from '../api/public';

type MessageRequest = Schemas['MessageRequest'];

/** The CSV columns a bulk file may have (header row required; unknown columns are reported). */
export const CSV_COLUMNS = [
  'to',
  'channel',
  'messageType',
  'text',
  'subject',
  'html',
  'sender',
  'templateId',
  'variables',
  'buttonVariables',
  'attachmentUrl',
] as const;
const CHANNELS = ['local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'];
// Several values in one cell (template variables): separated by "|".
const LIST_SEPARATOR = '|';

export interface ParsedCsv {
  messages: MessageRequest[];
  /** Problems found in the browser before the server's dry run (row numbers are 1-based data rows). */
  problems: { row: number; message: string }[];
  unknownColumns: string[];
}

function list(cell: string | undefined): string[] | undefined {
  if (!cell) return undefined;
  return cell.split(LIST_SEPARATOR).map((v) => v.trim());
}

function toMessage(r: Record<string, string>, row: number, problems: ParsedCsv['problems']): MessageRequest {
  const cell = (k: string) => (r[k] ?? '').trim() || undefined;
  const channel = cell('channel');
  if (!cell('to')) problems.push({ row, message: 'to is empty' });
  if (!channel) problems.push({ row, message: 'channel is empty' });
  else if (!CHANNELS.includes(channel))
    problems.push({ row, message: `channel "${channel}" is not one of ${CHANNELS.join(', ')}` });
  const templateId = cell('templateId');
  const messageType = cell('messageType') ?? (templateId ? 'template' : 'free_text');
  const m: Record<string, unknown> = { to: cell('to') ?? '', channel, messageType };
  if (messageType === 'template') {
    m.template = {
      id: templateId ?? '',
      variablesIndexed: list(cell('variables')),
      buttonVariables: list(cell('buttonVariables')),
    };
  } else {
    const content: Record<string, string> = {};
    for (const k of ['text', 'subject', 'html']) if (cell(k)) content[k] = cell(k) as string;
    m.content = content;
  }
  if (cell('sender')) m.sender = cell('sender');
  if (cell('attachmentUrl')) m.attachment = { url: cell('attachmentUrl') };
  // The server's validator is the judge of every other rule (the dry run shows its verdict).
  return JSON.parse(JSON.stringify(m)) as MessageRequest;
}

/** Parses a bulk CSV file in the browser (papaparse) into the bulk route's `messages`. */
export function parseBulkCsv(text: string): ParsedCsv {
  const out = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
  });
  const problems: ParsedCsv['problems'] = out.errors.map((e) => ({ row: (e.row ?? -1) + 1, message: e.message }));
  const columns = out.meta.fields ?? [];
  const unknownColumns = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (!columns.includes('to') || !columns.includes('channel'))
    problems.unshift({ row: 0, message: 'the header row must name at least the columns to and channel' });
  const messages = out.data.map((r, i) => toMessage(r, i + 1, problems));
  if (messages.length === 0) problems.push({ row: 0, message: 'the file has no data rows' });
  return { messages, problems, unknownColumns };
}

export const SAMPLE_CSV =
  'to,channel,text\n+966500000001,local_sms,Your order 1042 has shipped.\nali@example.com,email,Your invoice is ready\n';
