; Swift definitions: classes, structs, enums, extensions (of a type: its members are Type.member) and
; protocols; functions, initialisers.
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @members)) @definition.impl
(class_declaration name: (type_identifier) @name) @definition.class
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method

(class_declaration (inheritance_specifier inherits_from: (_) @base)) @bases.of
(protocol_declaration (inheritance_specifier inherits_from: (_) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(call_expression (simple_identifier) @call.name) @reference.call
(call_expression
  (navigation_expression target: (_) @call.receiver suffix: (navigation_suffix suffix: (simple_identifier) @call.name))) @reference.call
