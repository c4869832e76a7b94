import * as fs from "node:fs"
import { chromium } from "playwright-core"
import { percentile } from "../lib/stats.js"

const executablePath = "/usr/bin/chromium"

/** Milliseconds from navigation to the runs table's first rows, median and max of `loads` fresh page loads. */
export interface FirstPaintFigures {
  readonly loads: number
  readonly p50Ms: number
  readonly maxMs: number
}

/**
 * The dashboard's runs page on a long history (issue 17: first paint ≤ 1 s
 * with 1,000,000 runs): headless Debian Chromium, signed in with the bench
 * user's cookie (its only workspace and environment are chosen by default),
 * timed from `goto` to the first `tr[data-run]` in the table, each load in a
 * fresh browser context (no cache). Answers undefined without Chromium.
 */
export const firstPaint = async (o: {
  readonly serviceUrl: string
  readonly cookie: string
  readonly loads: number
}): Promise<FirstPaintFigures | undefined> => {
  if (!fs.existsSync(executablePath)) return undefined
  const browser = await chromium.launch({ executablePath, headless: true })
  try {
    const [name, ...rest] = o.cookie.split("=")
    const samples: Array<number> = []
    for (let i = 0; i < o.loads + 1; i++) {
      const context = await browser.newContext()
      await context.addCookies([{ name: name!, value: rest.join("="), url: o.serviceUrl }])
      const page = await context.newPage()
      const start = performance.now()
      await page.goto(`${o.serviceUrl}/#/runs`)
      await page.waitForSelector("tr[data-run]", { timeout: 30_000 })
      // The first load warms the service's statement cache and the OS page cache; it is not counted.
      if (i > 0) samples.push(performance.now() - start)
      await context.close()
    }
    samples.sort((a, b) => a - b)
    return { loads: o.loads, p50Ms: Math.round(percentile(samples, 50)), maxMs: Math.round(samples[samples.length - 1]!) }
  } finally {
    await browser.close()
  }
}
