// Every e2e response sent through supertest is checked against the committed OpenAPI documents: a
// status the document does not list for the operation, or a body outside its schema, fails the test.
import type { Response } from 'supertest';
import { Test } from 'supertest';
import { loadCommittedContract } from './openapi-contract';

type AssertFn = (
  resError: Error | null,
  res: Response | undefined,
  fn: (err: Error | null, res?: Response) => void,
) => void;
const contract = loadCommittedContract();
const proto = Test.prototype as unknown as { assert: AssertFn; method: string; url: string };
const original = proto.assert;

proto.assert = function (this: typeof proto, resError, res, fn) {
  if (res) {
    const problem = contract.check(
      this.method,
      this.url,
      res.status,
      res.headers['content-type'] as string | undefined,
      res.body,
    );
    if (problem) return fn(new Error(`OpenAPI contract: ${problem}`), res);
  }
  return original.call(this, resError, res, fn);
};
