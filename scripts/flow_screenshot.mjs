import { chromium } from 'playwright-core';
import path from 'node:path';
const [page_path, out] = process.argv.slice(2);
const dist = path.resolve('node_modules/mermaid/dist');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
// Offline here: the page's CDN import is answered from the same mermaid@11 files installed from npm.
await page.route('https://cdn.jsdelivr.net/npm/mermaid@11/dist/**', route => {
  const rel = new URL(route.request().url()).pathname.replace('/npm/mermaid@11/dist/', '');
  route.fulfill({ path: path.join(dist, rel), contentType: 'text/javascript' });
});
await page.goto('file://' + path.resolve(page_path));
await page.waitForSelector('pre.mermaid svg', { timeout: 20000 });
await page.screenshot({ path: out, fullPage: true });
console.log('svg nodes:', await page.locator('pre.mermaid svg g.node').count());
await browser.close();
