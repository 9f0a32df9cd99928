/**
 * A text PDF of any number of pages, written byte by byte (PDF 1.4, the standard Helvetica font, one
 * uncompressed content stream a page): the benchmark's large PDF, made here so that `npm run bench`
 * needs no office suite. Each page holds `lines` lines of prose that name its page.
 */

/** The PDF's bytes: `pages` pages of about `lines` lines each, with an outline entry every 10 pages. */
export function textPdf(pages: number, lines = 40): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) - 1 + 1; // object numbers from 1
  const catalog = add(""); // filled in below
  const pagesObj = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  for (let p = 1; p <= pages; p++) {
    const text = Array.from(
      { length: lines },
      (_, l) =>
        `(Page ${p} line ${l + 1}: the greenhouse controller reads soil moisture probe ${(p * 7 + l) % 13} and opens valve ${l % 4}.) Tj T*`,
    ).join("\n");
    const stream = `BT /F1 10 Tf 12 TL 40 800 Td\n${text}\nET`;
    const content = add(`<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  // an outline: "Chapter k" at every tenth page
  const chapters = kids.filter((_, i) => i % 10 === 0);
  const outline = add("");
  const first = objects.length + 1;
  chapters.forEach((page, k) => {
    const n = first + k;
    const prev = k ? ` /Prev ${n - 1} 0 R` : "";
    const next = k < chapters.length - 1 ? ` /Next ${n + 1} 0 R` : "";
    add(`<< /Title (Chapter ${k + 1}) /Parent ${outline} 0 R /Dest [${page} 0 R /Fit]${prev}${next} >>`);
  });
  objects[outline - 1] =
    `<< /Type /Outlines /First ${first} 0 R /Last ${first + chapters.length - 1} 0 R /Count ${chapters.length} >>`;
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R /Outlines ${outline} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info << /Title (Generated manual) >> >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
