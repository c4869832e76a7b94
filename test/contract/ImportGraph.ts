import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

/**
 * The module specifiers one file imports or re-exports, read with the
 * TypeScript parser. With `types: false`, value imports only: a type-only
 * import is erased at build time and loads nothing. With `types: true`,
 * every import, type-only ones and `import("…")` types included.
 */
export const specifiersOf = (file: string, options: { readonly types: boolean }): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false)
  const found: Array<string> = []
  const add = (specifier: ts.Node | undefined) => {
    if (specifier !== undefined && ts.isStringLiteral(specifier)) found.push(specifier.text)
  }
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause
      const typeOnly = clause !== undefined && (clause.isTypeOnly ||
        (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)))
      if (options.types || !typeOnly) add(statement.moduleSpecifier)
    } else if (ts.isExportDeclaration(statement) && (options.types || !statement.isTypeOnly)) {
      add(statement.moduleSpecifier)
    }
  }
  if (options.types) {
    const visit = (node: ts.Node) => {
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

/** A relative specifier as the `.ts` source file it names. */
export const resolveRelative = (from: string, specifier: string) =>
  path.resolve(path.dirname(from), specifier).replace(/\.js$/, ".ts")
