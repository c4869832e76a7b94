#!/usr/bin/env node
// The worker agent is TypeScript: register tsx's loader, then start it.
import { register } from "tsx/esm/api"

register()
await import(new URL("../src/WorkerAgent/Cli.ts", import.meta.url).href)
