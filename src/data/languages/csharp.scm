; C# definitions: namespaces do not qualify their types; types qualify their members (Type.Method).
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(namespace_declaration name: (_) @name) @definition.module
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function

(class_declaration (base_list (_) @base)) @bases.of
(struct_declaration (base_list (_) @base)) @bases.of
(interface_declaration (base_list (_) @base)) @bases.of
(record_declaration (base_list (_) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(invocation_expression function: (identifier) @call.name) @reference.call
(invocation_expression
  function: (member_access_expression expression: (_)? @call.receiver name: (identifier) @call.name)) @reference.call
