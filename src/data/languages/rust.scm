; Rust definitions. @members on an impl block is the type its functions belong to (`Type.method`),
; @trait the trait it implements: the block itself is named `impl Trait for Type`.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.const
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(impl_item trait: (_) @trait type: (_) @members) @definition.impl
(impl_item type: (_) @members) @definition.impl

; bases: supertraits
(trait_item bounds: (trait_bounds (_) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(call_expression function: (identifier) @call.name) @reference.call
(call_expression function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name)) @reference.call
(call_expression function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)) @reference.call
(call_expression function: (generic_function function: (identifier) @call.name)) @reference.call
(call_expression
  function: (generic_function function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))) @reference.call
(call_expression
  function: (generic_function function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name))) @reference.call
(macro_invocation macro: (identifier) @call.name) @reference.call
