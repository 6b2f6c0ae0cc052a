// Orderings that match PostgreSQL's exactly, for the in-memory evaluator: numeric (arbitrary
// precision decimals), text in code-point order (COLLATE "C"), and ISO text.

const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

interface Decimal {
  negative: boolean;
  /** Significant digits without leading or trailing zeros; '' for zero. */
  digits: string;
  /** Position of the decimal point relative to the start of `digits`. */
  pointAt: number;
}

function parseDecimal(text: string): Decimal | null {
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) return null;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  if (whole === '' && fraction === '') return null;
  let digits = whole + fraction;
  let pointAt = whole.length + Number(exponent);
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  pointAt -= leading;
  return { negative: sign === '-' && digits !== '', digits, pointAt: digits === '' ? 0 : pointAt };
}

export function isDecimalText(text: string): boolean {
  return parseDecimal(text) !== null;
}

/** Compares two numbers given as JS numbers or decimal strings; null if either is not a number. */
export function compareNumeric(left: unknown, right: unknown): number | null {
  const a = toDecimal(left);
  const b = toDecimal(right);
  if (!a || !b) return null;
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const magnitude = compareMagnitude(a, b);
  return a.negative ? 0 - magnitude : magnitude;
}

function toDecimal(value: unknown): Decimal | null {
  if (typeof value === 'number') return Number.isFinite(value) ? parseDecimal(String(value)) : null;
  if (typeof value === 'string') return parseDecimal(value);
  return null;
}

function compareMagnitude(a: Decimal, b: Decimal): number {
  if (a.digits === '' || b.digits === '') return Math.sign(a.digits.length - b.digits.length);
  if (a.pointAt !== b.pointAt) return a.pointAt > b.pointAt ? 1 : -1;
  const length = Math.max(a.digits.length, b.digits.length);
  const left = a.digits.padEnd(length, '0');
  const right = b.digits.padEnd(length, '0');
  return left === right ? 0 : left > right ? 1 : -1;
}

/** Code-point order, which is UTF-8 byte order: what PostgreSQL's "C" collation gives. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const difference = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
}
