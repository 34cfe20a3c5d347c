import { expect } from 'chai';
import { LineSplitter } from '../../apiserver/client/line-splitter.js';

describe('apiserver: LineSplitter, the lines of a watch stream as its chunks arrive', () => {
  const cases: { name: string; chunks: string[]; lines: string[][]; rest: string }[] = [
    { name: 'one line in one chunk', chunks: ['{"a":1}\n'], lines: [['{"a":1}']], rest: '' },
    { name: 'two lines in one chunk', chunks: ['a\nb\n'], lines: [['a', 'b']], rest: '' },
    { name: 'a line cut in two', chunks: ['{"a"', ':1}\n'], lines: [[], ['{"a":1}']], rest: '' },
    {
      name: 'a line over many chunks, then the start of the next',
      chunks: ['ab', 'cd', 'ef', 'g\nh'],
      lines: [[], [], [], ['abcdefg']],
      rest: 'h',
    },
    { name: 'a chunk that is only the newline', chunks: ['abc', '\n'], lines: [[], ['abc']], rest: '' },
    { name: 'empty lines, kept', chunks: ['\n\na\n'], lines: [['', '', 'a']], rest: '' },
    { name: 'a stream ending without a newline', chunks: ['a\nb'], lines: [['a']], rest: 'b' },
    { name: 'nothing', chunks: [''], lines: [[]], rest: '' },
  ];
  for (const { name, chunks, lines, rest } of cases)
    it(`splits ${name}`, () => {
      const splitter = new LineSplitter();
      expect(chunks.map((chunk) => splitter.push(chunk))).to.deep.equal(lines);
      // What came after the last newline is kept: the newline that ends it gives it whole.
      expect(splitter.push('\n')).to.deep.equal([rest]);
    });

  it('decodes bytes as UTF-8 across chunks: a character cut by a chunk’s end is whole in its line', () => {
    const bytes = Buffer.from('{"data":"é€😀"}\n', 'utf8');
    // Every cut, including inside each multi-byte character.
    for (let cut = 1; cut < bytes.length; cut++) {
      const splitter = new LineSplitter();
      const lines = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut))];
      expect(lines, `cut at byte ${cut}`).to.deep.equal(['{"data":"é€😀"}']);
    }
  });

  it('joins a 1 MB line read in 16 KB chunks, as it was sent', () => {
    const line = JSON.stringify({ data: 'x'.repeat(1024 * 1024) });
    const text = `${line}\n`;
    const splitter = new LineSplitter();
    const lines: string[] = [];
    for (let at = 0; at < text.length; at += 16 * 1024) lines.push(...splitter.push(text.slice(at, at + 16 * 1024)));
    expect(lines).to.have.length(1);
    expect(lines[0] === line).to.equal(true);
  });
});
