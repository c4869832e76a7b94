/** A small parser of the Prometheus text format, strict enough to catch a malformed exposition. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/g

export const parse = (text: string): Exposition => {
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  for (const line of text.split("\n")) {
    if (line === "") continue
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ")
      if (types.has(name!)) throw new Error(`TYPE twice for ${name}`)
      types.set(name!, type!)
      continue
    }
    if (line.startsWith("#")) continue
    const match = sampleLine.exec(line)
    if (match === null) throw new Error(`malformed sample line: ${line}`)
    const labels: Record<string, string> = {}
    if (match[2] !== undefined && match[2] !== "") {
      let consumed = 0
      for (const pair of match[2].matchAll(labelPair)) {
        labels[pair[1]!] = pair[2]!.replace(/\\n/g, "\n").replace(/\\"/g, "\"").replace(/\\\\/g, "\\")
        consumed += pair[0].length
      }
      if (consumed !== match[2].length) throw new Error(`malformed labels: ${line}`)
    }
    const raw = match[3]!
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw)
    if (Number.isNaN(value) && raw !== "NaN") throw new Error(`malformed value: ${line}`)
    samples.push({ name: match[1]!, labels, value })
  }
  return { types, samples }
}

const matches = (sample: Sample, name: string, labels: Record<string, string>) =>
  sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)

/** The value of the one sample with this name and (at least) these labels; 0 when absent. */
export const value = (exposition: Exposition, name: string, labels: Record<string, string> = {}): number => {
  const found = exposition.samples.filter((s) => matches(s, name, labels))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`)
  return found[0]?.value ?? 0
}

/** Every histogram series: its buckets in order, its count. */
export const histograms = (exposition: Exposition) => {
  const out: Array<{ name: string; key: string; buckets: Array<[number, number]>; count: number }> = []
  for (const [name, type] of exposition.types) {
    if (type !== "histogram") continue
    const series = new Map<string, { buckets: Array<[number, number]>; count: number }>()
    const keyOf = (labels: Readonly<Record<string, string>>) =>
      JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort())
    for (const sample of exposition.samples) {
      const entry = () => {
        const key = keyOf(sample.labels)
        let found = series.get(key)
        if (found === undefined) series.set(key, found = { buckets: [], count: NaN })
        return found
      }
      if (sample.name === `${name}_bucket`) entry().buckets.push([Number(sample.labels.le === "+Inf" ? Infinity : sample.labels.le), sample.value])
      else if (sample.name === `${name}_count`) entry().count = sample.value
    }
    for (const [key, s] of series) out.push({ name, key, ...s })
  }
  return out
}
