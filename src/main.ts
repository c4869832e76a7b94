import { NodeRuntime } from "@effect/platform-node"
import { main } from "./Processes/Launch.js"

main.pipe(NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true }))
