import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { testConfig as layerWith } from "../support/TestConfig.js"
import { guardedLookup, isBlockedAddress, UrlGuard } from "../../src/Webhooks/UrlGuard.js"

const validate = (url: string, allowPrivate = false) =>
  Effect.gen(function*() {
    const g = yield* UrlGuard
    return yield* Effect.either(g.validateForSave(url))
  }).pipe(Effect.provide(UrlGuard.Default), Effect.provide(layerWith({ webhookAllowPrivateNetworks: allowPrivate })))

describe("isBlockedAddress", () => {
  it.each([
    "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1", "239.1.1.1",
    "240.0.0.1", "255.255.255.255", "192.0.2.10", "198.51.100.7", "203.0.113.9", "198.18.0.1",
    "::", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
    "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1", "2001:db8::1", "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::1", "::127.0.0.1", "not-an-ip"
  ])("refuses %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true)
  })

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.32.0.1",
    "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "allows %s",
    (address) => {
      expect(isBlockedAddress(address)).toBe(false)
    }
  )
})

describe("UrlGuard.validateForSave", () => {
  it.effect("refuses non-public hosts with a 400 on webhookUrl", () =>
    Effect.gen(function*() {
      for (
        const url of [
          "http://127.0.0.1:8080/hook", "http://10.0.0.5/x", "http://169.254.169.254/latest/meta-data",
          "http://100.64.1.1/", "http://[::1]:3000/", "http://[fc00::1]/", "http://[::ffff:127.0.0.1]/",
          "http://localhost:3000/hook", "http://api.localhost/", "http://2130706433/", "http://0x7f000001/"
        ]
      ) {
        const result = yield* validate(url)
        expect(Either.isLeft(result), url).toBe(true)
        if (Either.isLeft(result)) expect(Object.keys(result.left.details.fieldErrors)).toEqual(["webhookUrl"])
      }
    }))

  it.effect("refuses what is not an absolute http(s) URL", () =>
    Effect.gen(function*() {
      for (const url of ["not a url", "/relative", "ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)"]) {
        const result = yield* validate(url, true)
        expect(Either.isLeft(result), url).toBe(true)
      }
    }))

  it.effect("accepts public addresses, and private ones when allowed", () =>
    Effect.gen(function*() {
      expect(Either.isRight(yield* validate("https://93.184.216.34/hook"))).toBe(true)
      expect(Either.isRight(yield* validate("http://[2606:4700:4700::1111]/hook"))).toBe(true)
      expect(Either.isRight(yield* validate("http://127.0.0.1:9000/hook", true))).toBe(true)
      expect(Either.isRight(yield* validate("http://localhost:9000/hook", true))).toBe(true)
    }))
})

describe("guardedLookup (connect time)", () => {
  const lookup = (allow: boolean, host: string, all: boolean) =>
    new Promise<{ err: any; address: any }>((resolve) =>
      guardedLookup(allow)(host, { all } as any, (err: any, address: any) => resolve({ err, address }))
    )

  it("refuses a name that resolves to loopback, unless private networks are allowed", async () => {
    const refused = await lookup(false, "localhost", false)
    expect(refused.err?.code).toBe("EBLOCKEDADDRESS")
    const refusedAll = await lookup(false, "localhost", true)
    expect(refusedAll.err?.code).toBe("EBLOCKEDADDRESS")
    const allowed = await lookup(true, "localhost", false)
    expect(allowed.err).toBeNull()
    expect(isBlockedAddress(allowed.address)).toBe(true)
    const allowedAll = await lookup(true, "localhost", true)
    expect(Array.isArray(allowedAll.address)).toBe(true)
  })
})
