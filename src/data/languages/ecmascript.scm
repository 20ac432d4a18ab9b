; Definitions JavaScript and TypeScript share (module-level constants, CommonJS and prototype assignments),
; read after each language's own query (languages.toml lists both files).

; module-level `const f = () => ...`, `const Foo = class {...}`, `const x = ...`
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.const))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.const))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.const)))
(program (export_statement (variable_declaration (variable_declarator name: (identifier) @name) @definition.const)))

; CommonJS and prototype assignments
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @owner
        property: (property_identifier) @_prototype (#eq? @_prototype "prototype"))
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.method
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @_module (#eq? @_module "module")
        property: (property_identifier) @_exports (#eq? @_exports "exports"))
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function) (class)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports (#eq? @_exports "exports")
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function) (class)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports (#eq? @_exports "exports")
      property: (property_identifier) @name))) @definition.const
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner  ; not `window.f = ...` (treesitter_parser._GLOBAL_OWNERS: py-tree-sitter
      ; 0.25 ignores `#not-any-of?`)
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: [
      (function_expression name: (identifier) @name)
      (class name: (_) @name)
    ])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression object: (this) @owner property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; call sites (@reference.call, @call.function the callee: a name, or a member `x.m`, read by
; treesitter_parser._callee: a pattern that spells out the member's fields compiles 3x slower) and imports
; (@reference.import: @import.source, the module as written, @import.name, @import.alias)
(call_expression function: (_) @call.function) @reference.call
(new_expression constructor: (_) @call.function) @reference.call
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.source)) @reference.import
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.source)) @reference.import
(import_statement
  (import_clause (identifier) @import.alias)
  source: (string (string_fragment) @import.source)) @reference.import
; re-exports (a barrel file: `export * from "./a"`, `export {b, c as d} from "./b"`, `export * as ns from "./c"`)
; pass names on as imports do: `*` is a star import (it binds no one name), `* as ns` binds the module
(export_statement "*" @import.name source: (string (string_fragment) @import.source)) @reference.import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.source)) @reference.import
(export_statement
  (namespace_export (identifier) @import.alias)
  source: (string (string_fragment) @import.source)) @reference.import
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.source)))) @reference.import

; functions read as values (@reference.value: the name; @reference.member: `this.m` / `X.m`, its receiver
; and name read by treesitter_parser._member, as the query compiles faster so): an argument, a returned,
; assigned or stored value, a fallback (`a ?? f`), `this.m.bind(this)`;
; a bare name counts only when the file defines it as a function or an import binds it (and no enclosing
; definition takes a parameter of that name), and any counts only when it resolves exact or through an import
(arguments (identifier) @reference.value)
(arguments (member_expression) @reference.member)
(return_statement (identifier) @reference.value)
(binary_expression right: (identifier) @reference.value)
(pair value: (identifier) @reference.value)
(object (shorthand_property_identifier) @reference.value)  ; `{ proxyMap, proxySet }`, `module.exports = { a, b }`
(pair value: (member_expression) @reference.member)
(array (identifier) @reference.value)
(variable_declarator value: (identifier) @reference.value)
(variable_declarator value: (member_expression) @reference.member)
(assignment_expression right: (identifier) @reference.value)
(assignment_expression right: (member_expression) @reference.member)
; a conditional's branch (`flag ? pickA : pickB`), a function a property is set on (`creator.type = type`), a
; destructured or parameter default (`{ pick = pickB }`, `(pick = pickB)`)
(ternary_expression consequence: (identifier) @reference.value)
(ternary_expression alternative: (identifier) @reference.value)
(assignment_expression left: (member_expression object: (identifier) @reference.value))
(object_assignment_pattern right: (identifier) @reference.value)
(assignment_pattern right: (identifier) @reference.value)
(call_expression
  function: (member_expression
    object: (member_expression) @reference.member
    property: (property_identifier) @_bind (#eq? @_bind "bind")))
