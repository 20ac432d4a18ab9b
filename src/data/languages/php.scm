; PHP definitions: classes, interfaces, traits, enums and their methods (Class.method), functions.
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(namespace_definition name: (namespace_name) @name) @definition.module

(class_declaration (base_clause (_) @base)) @bases.of
(class_declaration (class_interface_clause (_) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(function_call_expression function: (name) @call.name) @reference.call
(member_call_expression object: (_) @call.receiver name: (name) @call.name) @reference.call
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name) @reference.call
