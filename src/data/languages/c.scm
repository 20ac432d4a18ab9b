; C definitions: functions, and named structs, unions, enums and typedefs.
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_function_def name: (identifier) @name) @definition.macro

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(call_expression function: (identifier) @call.name) @reference.call
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)) @reference.call
