import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { main } from "./Processes/Launch.js"

main.pipe(NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true }))
