; C++ definitions: as C, plus classes, namespaces (which do not qualify) and `Type::method` definitions
; outside their class (@owner).
(function_definition
  declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (_) @name))) @definition.method
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (_) @name)))) @definition.method
(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (_) @name)))) @definition.method
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
(function_definition
  declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (_) @name) @definition.module
(preproc_function_def name: (identifier) @name) @definition.macro

(class_specifier (base_class_clause (type_identifier) @base)) @bases.of
(struct_specifier (base_class_clause (type_identifier) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(call_expression function: (identifier) @call.name) @reference.call
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)) @reference.call
(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name)) @reference.call
