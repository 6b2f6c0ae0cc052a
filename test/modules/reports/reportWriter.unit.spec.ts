// The CSV cells of a report: text always quoted with its quotes doubled, and text a spreadsheet would
// run as a formula (= + - @, a tab or a carriage return first) written with a leading single quote.
import { describe, expect, it } from 'vitest';
import { csvCell } from '../../../src/modules/reports/reportWriter.ts';

describe('csvCell', () => {
  it('quotes text and doubles its quotes; numbers and nulls are bare', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a "quoted", text\nwith a line')).toBe('"a ""quoted"", text\nwith a line"');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
  });

  it('guards cells that start like a formula', () => {
    for (const formula of ['=SUM(A1:A2)', '+1+1', '-2-3', '@cmd', '\t=1', '\r=1']) expect(csvCell(formula)).toBe(`"'${formula.replaceAll('"', '""')}"`);
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('a=b')).toBe('"a=b"');
  });
});
