// A small, valid PDF made by hand, for the tests and the PDF benchmark: one page per entry of
// `pages`, each line of an entry a line of text (Helvetica, a standard font: no font file).
// An entry that is null makes a page with no text layer (what a scanned page looks like:
// here a filled rectangle, no text operators).
// makePdf(pages) -> Buffer. Offsets in the cross-reference table are computed, so PDF.js
// reads it without repairing it.

/** A PDF string literal: backslash, parentheses escaped; only printable ASCII kept. */
function literal(text) {
  return `(${text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function pageContent(lines) {
  if (lines === null) return '0.5 g 72 72 400 600 re f';
  const ops = ['BT', '/F1 12 Tf', '14 TL', '72 740 Td'];
  for (const line of String(lines).split('\n')) ops.push(`${literal(line)} Tj T*`);
  ops.push('ET');
  return ops.join('\n');
}

function makePdf(pages) {
  const objects = [];
  const add = (body) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add(null);
  const pagesObj = add(null);
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids = [];
  for (const lines of pages) {
    const content = pageContent(lines);
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

module.exports = { makePdf };
