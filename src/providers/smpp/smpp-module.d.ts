// Minimal typings for the parts of the `smpp` package (0.5, untyped) that we use.
declare module 'smpp' {
  import { EventEmitter } from 'events';
  import { Server as NetServer } from 'net';

  export interface PDU {
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
  }

  export class Session extends EventEmitter {
    socket: { writable: boolean; remoteAddress?: string };
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void): boolean;
    bind_transceiver(options: Record<string, unknown>, cb?: (pdu: PDU) => void): boolean;
    submit_sm(options: Record<string, unknown>, cb?: (pdu: PDU) => void): boolean;
    enquire_link(options?: Record<string, unknown>, cb?: (pdu: PDU) => void): boolean;
    unbind(options?: Record<string, unknown>, cb?: (pdu: PDU) => void): boolean;
    deliver_sm(options: Record<string, unknown>, cb?: (pdu: PDU) => void): boolean;
    pause(): void;
    resume(): void;
    close(cb?: () => void): void;
    destroy(cb?: () => void): void;
  }

  export class Server extends NetServer {}

  export function connect(options: Record<string, unknown>, listener?: () => void): Session;
  export function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
  export function addTLV(tag: string, options: { id: number; type: unknown }): void;
  export const tlvs: Record<string, { id: number; type: unknown }>;
  export const types: { tlv: Record<string, unknown> };
  export const errors: Record<string, number>;
  export const ESME_ROK: number;
  export const ESME_RTHROTTLED: number;
  export const ESME_RINVDSTADR: number;
  export const ESME_RSYSERR: number;
  export const ESME_RBINDFAIL: number;
}
