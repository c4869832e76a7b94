import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { type AppConfig, type AppConfigShape, layerWith } from "../../src/Config/AppConfig.js"
import * as Tuning from "../../src/Config/Tuning.js"
import { testJwtSecret, testSecretsKey } from "./Process.js"

/** Settings of either kind: where the service runs (`AppConfig`) and its tunables (`Tuning`). */
export type TestSettings = Partial<AppConfigShape & Tuning.TuningShape>

/**
 * The service's fixed configuration for in-process tests, with the tests' own
 * keys (never shipped in src/): each setting goes to the tag that holds it.
 */
export const testConfig = (overrides: TestSettings = {}): Layer.Layer<AppConfig | Tuning.Tuning> => {
  const tuning: Record<string, unknown> = {}
  const app: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(overrides)) (key in Tuning.defaults ? tuning : app)[key] = value
  return Layer.merge(
    layerWith({ jwtSecret: Redacted.make(testJwtSecret), secretsKey: Redacted.make(testSecretsKey), ...app }),
    Tuning.layer(tuning)
  )
}
