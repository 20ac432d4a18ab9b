; TypeScript (and TSX) definitions. @owner qualifies an assignment (`X.prototype.m = function` is X.m).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module

; a method of an object literal a variable holds (`const traps = { get() {...} }`) is `traps.get`: no bare
; `get()` reaches it
(variable_declarator name: (identifier) @owner value: (object (method_definition name: (_) @name) @definition.method))
(variable_declarator
  name: (identifier) @owner
  value: (as_expression (object (method_definition name: (_) @name) @definition.method)))
(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(interface_body (property_signature name: (_) @name) @definition.field)


; functions read as values in TypeScript's own forms (ecmascript.scm has the rest): `typeof f` in a type,
; `f as T`, a parameter's default (`pick = pickB`)
(type_query (identifier) @reference.value)
(as_expression . (identifier) @reference.value)
(required_parameter value: (identifier) @reference.value)
; the keys of an object literal a type types (`function make(): Ops { return { addOne: double, reset } }`,
; `const ops: Partial<Ops> = {...}`, `{...} satisfies Ops`, `(): Ops => ({...})`): each reads the type's
; member of its name (@reference.key: treesitter_parser._literal_type finds the type, if any)
(return_statement (object [(pair key: (property_identifier) @reference.key) (shorthand_property_identifier) @reference.key]))
(variable_declarator
  type: (type_annotation)
  value: (object [(pair key: (property_identifier) @reference.key) (shorthand_property_identifier) @reference.key]))
(satisfies_expression (object [(pair key: (property_identifier) @reference.key) (shorthand_property_identifier) @reference.key]))
(arrow_function
  return_type: (type_annotation)
  body: (parenthesized_expression
    (object [(pair key: (property_identifier) @reference.key) (shorthand_property_identifier) @reference.key])))

; bases: what a class extends or implements, what an interface extends
(class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(interface_declaration (extends_type_clause (_) @base)) @bases.of
; @base.dotted keeps a qualifier (`Queue.Dequeue<A>` is `Queue.Dequeue`: a namespace import's member)
(class_declaration (class_heritage (extends_clause value: (member_expression) @base.dotted))) @bases.of
(class_declaration (class_heritage (implements_clause [(nested_type_identifier) @base.dotted
                                                       (generic_type name: (nested_type_identifier) @base.dotted)]))) @bases.of
(abstract_class_declaration (class_heritage (extends_clause value: (member_expression) @base.dotted))) @bases.of
(abstract_class_declaration (class_heritage (implements_clause [(nested_type_identifier) @base.dotted
                                                                (generic_type name: (nested_type_identifier) @base.dotted)]))) @bases.of
(interface_declaration (extends_type_clause [(nested_type_identifier) @base.dotted
                                             (generic_type name: (nested_type_identifier) @base.dotted)])) @bases.of

; an object literal's methods implement the type that types the literal, as a class's implement its
; interfaces (`const proto: Omit<Chunk<unknown>, "length"> = { pipe() {...} }`: `pipe` implements
; `Chunk.pipe`, which may be a base's). The parser reads the type around the literal: a variable's annotation
; (the literal may be `as const`), `satisfies T`, `as T`, the annotated return of the function that
; returns it (one pattern: one a context made the query slower to compile by 6 ms)
(object (method_definition) @bases.of)


; receivers' types (domain.calls, rule 3): a typed parameter, variable or field (`Foo | undefined` is a Foo;
; `A | B | undefined` both: the parser reads the whole union from any of its types), a `#private` field too,
; a variable made with `new`
; (@reference.typed: @typed.name a variable, or @typed.field a field read as `this.<field>`, and @typed.type)
(required_parameter
  pattern: (identifier) @typed.name
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (readonly_type (array_type) @typed.type)
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed
(optional_parameter
  pattern: (identifier) @typed.name
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (readonly_type (array_type) @typed.type)
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed
(variable_declarator
  name: (identifier) @typed.name
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (readonly_type (array_type) @typed.type)
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed
(variable_declarator
  name: (identifier) @typed.name
  value: (new_expression constructor: [(identifier) (member_expression)] @typed.type)) @reference.typed
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @typed.field
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (readonly_type (array_type) @typed.type)
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @typed.field
  value: (new_expression constructor: [(identifier) (member_expression)] @typed.type)) @reference.typed

; an interface's property (`copy_: AnyMap | undefined`) types it for the receivers typed by the interface
(interface_body (property_signature
  name: (property_identifier) @typed.field
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed)

; a module's type alias of one type (`type AnyMap = Map<any, any>`: @alias.name is @alias.type)
(program (type_alias_declaration
  name: (type_identifier) @alias.name
  value: [(type_identifier) @alias.type (generic_type name: (type_identifier) @alias.type)]) @reference.alias)
(program (export_statement (type_alias_declaration
  name: (type_identifier) @alias.name
  value: [(type_identifier) @alias.type (generic_type name: (type_identifier) @alias.type)]) @reference.alias))
; and of a union of a few (`type Option<A> = None<A> | Some<A>`: @alias.union, each of its types)
(program (type_alias_declaration name: (type_identifier) @alias.name value: (union_type) @alias.union) @reference.alias)
(program (export_statement
  (type_alias_declaration name: (type_identifier) @alias.name value: (union_type) @alias.union) @reference.alias))

; a variable that holds a field (`const queryCache = this.#queryCache`): typed as the field is, when asked
(variable_declarator
  name: (identifier) @typed.name
  value: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)]) @typed.type) @reference.typed

; a variable that holds another's member or element (`const list = globalState.pending`, `const dep =
; observing[i]`, `const observing = (derivation.observing_ = derivation.newObserving_!)`, `const prev = i ?
; xs[i - 1] : null`), or `this` (`const self = this`): the value captured
; whole, read by treesitter_parser._held
(variable_declarator
  name: (identifier) @typed.name
  value: [(member_expression) (subscript_expression) (parenthesized_expression) (non_null_expression) (this)
          (ternary_expression)] @typed.held) @reference.typed

; a destructured variable (`const {base_, copy_} = state`, `const {scope_: scope} = state`, `let {a} = this`)
; holds the field of that name (@typed.key, else its own) of what it is taken from (@typed.from)
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @typed.name)
  value: [(identifier) (this)] @typed.from) @reference.typed
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @typed.key value: (identifier) @typed.name))
  value: [(identifier) (this)] @typed.from) @reference.typed

; a function's `this` parameter types `this` in it (effect's prototypes: `const Proto = { toString(this:
; FiberHandle) { return format(this.toJSON()) } }`)
(required_parameter
  pattern: (this) @typed.name
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type])) @reference.typed

; an `if` whose condition narrows a variable in its branch (`if (isObservableMap(obj)) obj.get(k)`, a type
; predicate's call; `if (x instanceof C)`): the condition and the branch captured whole, read by
; treesitter_parser._narrowings
(if_statement condition: (parenthesized_expression) @narrow.condition consequence: (_) @narrow.block) @reference.narrow

; a constructor's parameter property (`constructor(private scheduler: AsyncScheduler)`, `readonly type: AST`)
; types the field
(required_parameter
  [(accessibility_modifier) "readonly"]
  pattern: (identifier) @typed.this
  type: (type_annotation [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                          (nested_type_identifier) @typed.type (array_type) @typed.type
                          (readonly_type (array_type) @typed.type)
                          (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)
                                       (array_type) @typed.type
                                       (union_type [(type_identifier) @typed.type (generic_type name: (_) @typed.type)])])])) @reference.typed

; and with a value made by `new` (`constructor(public values_ = new Map<K, V>())`)
(required_parameter
  [(accessibility_modifier) "readonly"]
  pattern: (identifier) @typed.this
  value: (new_expression constructor: [(identifier) (member_expression)] @typed.type)) @reference.typed

; a variable or `this.<field>` assigned a call's value is typed by what the call returns (@typed.call: the
; callee, `this.make`, `factory.create`, `of`); `this.<field> = new Foo()` / `= f()` in a method types the
; field for the whole class (@typed.this; the assignment's sides captured whole, @typed.left and @typed.right,
; and read by treesitter_parser._this_assigned: a pattern spelling out the member's fields compiles 3x slower)
(variable_declarator
  name: (identifier) @typed.name
  value: [(call_expression function: [(identifier) (member_expression)] @typed.call)
          (non_null_expression (call_expression function: [(identifier) (member_expression)] @typed.call))]) @reference.typed
(assignment_expression
  left: (member_expression) @typed.left
  right: [(new_expression) (call_expression)] @typed.right) @reference.typed

; what a function or method returns, as its annotation names it (@reference.returns: the definition)
(function_declaration
  return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                 (nested_type_identifier) @returns.type (array_type) @returns.type
                                 (readonly_type (array_type) @returns.type)
                                 (union_type [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                              (array_type) @returns.type])])) @reference.returns
(method_definition
  return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                 (nested_type_identifier) @returns.type (array_type) @returns.type
                                 (readonly_type (array_type) @returns.type)
                                 (union_type [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                              (array_type) @returns.type])])) @reference.returns
(function_signature
  return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                 (nested_type_identifier) @returns.type (array_type) @returns.type
                                 (readonly_type (array_type) @returns.type)
                                 (union_type [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                              (array_type) @returns.type])])) @reference.returns
(method_signature
  return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                 (nested_type_identifier) @returns.type (array_type) @returns.type
                                 (readonly_type (array_type) @returns.type)
                                 (union_type [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                              (array_type) @returns.type])])) @reference.returns

; a type predicate (`function isMap(x: any): x is Map<any, any>`, a method's, an arrow function's, a constant's
; cast to one: `const isObservableMap = make(...) as (thing: any) => thing is ObservableMap<any, any>`) returns
; the type it narrows to: an `if` that calls it narrows its argument to that type (`_narrowings`)
(function_declaration
  return_type: (type_predicate_annotation (type_predicate type: [(type_identifier) @returns.type
                                                                 (generic_type name: (_) @returns.type)
                                                                 (nested_type_identifier) @returns.type]))) @reference.returns
(method_definition
  return_type: (type_predicate_annotation (type_predicate type: [(type_identifier) @returns.type
                                                                 (generic_type name: (_) @returns.type)
                                                                 (nested_type_identifier) @returns.type]))) @reference.returns
(variable_declarator
  name: (identifier) @returns.name
  value: [(arrow_function return_type: (type_predicate_annotation (type_predicate type: [(type_identifier) @returns.type
                                                                                       (generic_type name: (_) @returns.type)
                                                                                       (nested_type_identifier) @returns.type])))
          (as_expression (function_type return_type: (type_predicate type: [(type_identifier) @returns.type
                                                                            (generic_type name: (_) @returns.type)
                                                                            (nested_type_identifier) @returns.type])))] @reference.returns)

; `const f = (a: A): T => ...` (@returns.name: the variable, the definition the return is recorded for)
(variable_declarator
  name: (identifier) @returns.name
  value: (arrow_function
    return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                   (nested_type_identifier) @returns.type (array_type) @returns.type
                                   (readonly_type (array_type) @returns.type)
                                   (union_type [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                                (array_type) @returns.type])])) @reference.returns)

; a constant typed by a function type returns what the type does (`const sleep: (d: Duration) => Effect<void>
; = effect.sleep`), or by an object type of call signatures, what each does (effect's `dual` APIs: `const map:
; { <A, B>(f: F): (self: Effect<A>) => Effect<B>; <A, B>(self: Effect<A>, f: F): Effect<B> } = dual(...)`)
(variable_declarator
  name: (identifier) @returns.name
  type: (type_annotation (function_type
    return_type: [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                  (nested_type_identifier) @returns.type]) @reference.returns))
(variable_declarator
  name: (identifier) @returns.name
  type: (type_annotation (object_type (call_signature
    return_type: (type_annotation [(type_identifier) @returns.type (generic_type name: (_) @returns.type)
                                   (nested_type_identifier) @returns.type])) @reference.returns)))

; what a function hands its callbacks (@reference.callback: a parameter typed by a function type;
; @callback.param one of that type's parameters, @callback.type its type): `operate(init: (source:
; Observable<T>, subscriber: Subscriber<R>) => void)` types `source` in `operate((source, subscriber) => ...)`
(required_parameter
  type: (type_annotation (function_type
    parameters: (formal_parameters
      (required_parameter
        pattern: (identifier)
        type: (type_annotation [(type_identifier) @callback.type (generic_type name: (_) @callback.type)
                                (nested_type_identifier) @callback.type])) @callback.param)))) @reference.callback
(optional_parameter
  type: (type_annotation (function_type
    parameters: (formal_parameters
      (required_parameter
        pattern: (identifier)
        type: (type_annotation [(type_identifier) @callback.type (generic_type name: (_) @callback.type)
                                (nested_type_identifier) @callback.type])) @callback.param)))) @reference.callback

; `const it = xs[Symbol.iterator]()`: an Iterator (@typed.protocol: `iterator`, `asyncIterator`)
(variable_declarator
  name: (identifier) @typed.name
  value: (call_expression
    function: (subscript_expression
      index: (member_expression object: (identifier) @_symbol (#eq? @_symbol "Symbol")
                                property: (property_identifier) @typed.protocol)))) @reference.typed

; `for (const q of queries)`: `q` is an element of `queries` (@typed.of), as `queries.forEach((q) => ...)` reads it
(for_in_statement left: (identifier) @typed.name "of" right: (_) @typed.of) @reference.typed

; an arrow function's untyped parameter: when the function is an argument of a call or `new`, the parser
; types it by what the callee hands that callback (above). Matched alone, the parser looking up the call:
; the call in the pattern made the query slower to compile by a tenth
(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @typed.name !type) @reference.typed))
(arrow_function parameter: (identifier) @typed.name @reference.typed)
