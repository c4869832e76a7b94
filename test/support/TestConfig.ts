import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { type AppConfig, type AppConfigShape, layerWith } from "../../src/Config/AppConfig.js"
import { testJwtSecret, testSecretsKey } from "./Process.js"

/** The service's fixed configuration for in-process tests, with the tests' own keys (never shipped in src/). */
export const testConfig = (overrides: Partial<AppConfigShape> = {}): Layer.Layer<AppConfig> =>
  layerWith({ jwtSecret: Redacted.make(testJwtSecret), secretsKey: Redacted.make(testSecretsKey), ...overrides })
