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

(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(interface_body (property_signature name: (_) @name) @definition.field)


; bases: what a class extends or implements, what an interface extends
(class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(interface_declaration (extends_type_clause (_) @base)) @bases.of
