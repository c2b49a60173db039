const pdfjs = require('pdfjs-dist/legacy/build/pdf.mjs');
const { createCanvas } = require('@napi-rs/canvas');
const fs = require('fs');
(async () => {
  const data = new Uint8Array(fs.readFileSync(process.argv[2]));
  const pdf = await pdfjs.getDocument({ data }).promise;
  console.log('pages', pdf.numPages);
  const pages = process.argv.slice(4).map(Number);
  for (const n of pages) {
    const page = await pdf.getPage(n);
    const viewport = page.getViewport({ scale: 1.3 });
    const canvas = createCanvas(viewport.width, viewport.height);
    await page.render({ canvasContext: canvas.getContext('2d'), viewport, canvas }).promise;
    fs.writeFileSync(`${process.argv[3]}-${n}.png`, canvas.toBuffer('image/png'));
  }
})().catch(e => { console.error(e); process.exit(1); });
