; Go definitions. Captures: @definition.<kind> the node, @name its name, @owner the receiver type
; (a method's qualified name is Owner.name). Earlier patterns win when two capture the same node.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(interface_type (method_elem name: (field_identifier) @name) @definition.method)

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.const))

; bases: embedded structs and interfaces
(type_spec type: (struct_type (field_declaration_list (field_declaration . type: [(type_identifier) (qualified_type) (pointer_type)] @base .)))) @bases.of
(type_spec type: (interface_type (type_elem (type_identifier) @base))) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on) and
; imports (@reference.import: @import.source, the module as written, @import.name, @import.alias)
(call_expression function: (identifier) @call.name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)) @reference.call
(import_spec name: (package_identifier)? @import.alias path: (interpreted_string_literal) @import.source) @reference.import

; receivers' types (domain.calls, rule 3; @reference.typed on the name: `a, b *T` declares two): a method's
; receiver, a parameter, a `var` (module-level too), a struct's field (read as `this.<field>` of its struct).
; @typed.go is the declared type, read by treesitter_parser._go_named (one pattern each, not an alternative
; per shape: the query compiles in half the time): `T`, `pkg.T`, `*T`, `G[T]`, `*G[T]`; a slice, array or
; map is typed by its element (what `range` and an index give: `for _, sub := range c.commands`,
; `f.formal[name]`): `[]T`, `[]*T`, `[n]T`, `map[K]T`, `map[K]*T`
(parameter_declaration name: (identifier) @typed.name @reference.typed type: (_) @typed.go)
(var_spec name: (identifier) @typed.name @reference.typed type: (_) @typed.go)
(field_declaration name: (field_identifier) @typed.field @reference.typed type: (_) @typed.go)
; a variable holding a composite literal (`x := &T{...}`, `var x = T{}`) or what a call returns (`x, err :=
; f()`: the first result, `f()`)
(short_var_declaration
  left: (expression_list . (identifier) @typed.name @reference.typed)
  right: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @typed.type)
                             (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @typed.type))]))
(var_spec
  name: (identifier) @typed.name @reference.typed
  value: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @typed.type)
                             (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @typed.type))]))
(short_var_declaration
  left: (expression_list . (identifier) @typed.name @reference.typed)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @typed.call)))
(var_spec
  name: (identifier) @typed.name @reference.typed
  value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @typed.call)))

; what a function returns (its first result's type), for `x := NewT()` and `f().m()`: @returns.go is the
; result, read by treesitter_parser._go_named (`T`, `*T`, a slice's, array's or map's element; of a list
; `(T, error)`, its first)
(function_declaration result: (_) @returns.go) @reference.returns
(method_declaration result: (_) @returns.go) @reference.returns

; functions read as values (@reference.value, @value.go: a bare name is kept whatever the file defines, a
; package's functions being in its other files too; `x.m` with @value.receiver): an argument, a keyed
; element's value (`Args: NoArgs`, `"gt": Gt`), an assignment's or a return's value
(argument_list (identifier) @reference.value @value.go)
(argument_list (selector_expression operand: (identifier) @value.receiver field: (field_identifier) @value.name) @reference.value)
(keyed_element value: (literal_element (identifier) @reference.value @value.go))
(keyed_element value: (literal_element (selector_expression operand: (identifier) @value.receiver field: (field_identifier) @value.name) @reference.value))
(literal_value (literal_element (identifier) @reference.value @value.go))
(assignment_statement right: (expression_list (identifier) @reference.value @value.go))
(return_statement (expression_list (identifier) @reference.value @value.go))

; a range's value (`for _, sub := range X`): typed as X's element when a call on it is read (@typed.range)
(range_clause
  left: (expression_list . (_) . (identifier) @typed.name @reference.typed)
  right: (_) @typed.range)
; a type assertion's value (`val, ok := f.Value.(SliceValue)`, `if v, ok := x.(*T); ok`)
(short_var_declaration
  left: (expression_list . (identifier) @typed.name @reference.typed)
  right: (expression_list . (type_assertion_expression
                              type: [[(type_identifier) (qualified_type)] @typed.type
                                     (pointer_type [(type_identifier) (qualified_type)] @typed.type)])))
