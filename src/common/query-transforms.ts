// class-transformer steps for query strings. A value is a string, or an array when repeated
// (`?cursor=a&cursor=b`), which then fails IsString / IsIn / IsInt like any other malformed value.

/** An empty value means the default. */
export const emptyAsAbsent = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** An integer such as `limit`: digits become a number, anything else NaN (IsInt refuses it); empty is absent. */
export const toInteger = ({ value }: { value: unknown }): unknown => {
  if (value === '') return undefined;
  return typeof value === 'string' ? (/^\d+$/.test(value) ? Number(value) : NaN) : value;
};

/** `true` / `false` become booleans (IsBoolean refuses anything else); empty is absent. */
export const toBool = ({ value }: { value: unknown }): unknown =>
  value === '' ? undefined : value === 'true' ? true : value === 'false' ? false : value;
