import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"

type Cases = { readonly [tag: string]: (error: any) => unknown }

/** The tags of `E` that `C` answers. */
type Answered<E, C extends Cases> = Extract<E, { readonly _tag: keyof C }>["_tag"] & keyof C

/**
 * The handler side of a feature's domain errors: `effect` with each error
 * whose tag `cases` names answered as the wire error its case returns, every
 * other error left as it was. Unlike `Effect.catchTags`, one set of cases
 * serves every handler of the feature, whatever subset of them it can fail with.
 */
export const answering = <C extends Cases>(cases: C) =>
<A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, { readonly _tag: keyof C }> | ReturnType<C[Answered<E, C>]>, R> =>
  Effect.catchIf(
    effect,
    (error) => Predicate.hasProperty(error, "_tag") && typeof error._tag === "string" && Object.hasOwn(cases, error._tag),
    (error) => Effect.fail(cases[(error as { readonly _tag: string })._tag]!(error))
  ) as Effect.Effect<A, any, R>
