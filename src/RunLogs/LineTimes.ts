/**
 * A log line's time as an ISO string and a `Date`, each conversion
 * remembering its last answer. The lines of one write share their time, and
 * a chatty command's lines mostly share their millisecond, so most lines
 * convert nothing: writing a line's time for Postgres and again for each
 * follower (`toISOString`), and reading it back (the driver's timestamp
 * parser), were a large part of the service's own work per line (a CPU
 * profile of the run-logs bench). The worker's `at` is parsed the same way
 * (`decodeWellFormedLines`). Dates handed out are shared: nothing mutates them.
 */

let lastDate: Date | undefined
let lastDateIso = ""

/** `date.toISOString()`. */
export const isoOf = (date: Date): string => {
  if (date !== lastDate && date.getTime() !== lastDate?.getTime()) {
    lastDateIso = date.toISOString()
  }
  lastDate = date
  return lastDateIso
}

let lastMillis = Number.NaN
let lastMillisDate = new Date(0)

/** `new Date(millis)`. */
export const dateOfMillis = (millis: number): Date => {
  if (millis !== lastMillis) {
    lastMillis = millis
    lastMillisDate = new Date(millis)
  }
  return lastMillisDate
}
