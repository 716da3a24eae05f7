/**
 * An account's id as tenancy carries it. Repository methods that read or write one account's rows
 * take an AccountId, not a string, so a cross-account read cannot be written by accident: an id from
 * a request body, a path or another record's field does not compile there. An AccountId comes from
 * the caller's key (the auth context), from a row's own `accountId` column, or from `accountIdOf` at a
 * boundary that has established whose account it is (an operator route that found the account, a
 * loop over accounts, a test). Novu's EnforceEnvId is the model.
 */
declare const accountIdBrand: unique symbol;
export type AccountId = string & { readonly [accountIdBrand]: true };

/** The id as an AccountId: only where the caller has established the account (see above). */
export function accountIdOf(id: string): AccountId {
  return id as AccountId;
}
